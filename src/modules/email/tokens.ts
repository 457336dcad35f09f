import { createHmac, timingSafeEqual } from 'node:crypto'
import { isNotificationType, type NotificationType as EmailType } from '../notifications/types.ts'

/*
 * Unsubscribe tokens: `<userId>.<type>.<signature>`, the signature an HMAC-SHA256 of
 * "unsubscribe:<userId>:<type>" under the service secret. Per user and type, no expiry (links in
 * old mails keep working), nothing stored.
 */
const sign = (secret: string, userId: string, type: EmailType) =>
  createHmac('sha256', secret).update(`unsubscribe:${userId}:${type}`).digest('base64url')

export function unsubscribeToken(secret: string, userId: string, type: EmailType) {
  return `${userId}.${type}.${sign(secret, userId, type)}`
}

export function verifyUnsubscribeToken(secret: string, token: string): { userId: string; type: EmailType } | null {
  const [userId, type, sig, ...rest] = token.split('.')
  if (!userId || !type || !sig || rest.length) return null
  if (!/^[0-9a-f-]{36}$/i.test(userId) || !isNotificationType(type)) return null
  const want = Buffer.from(sign(secret, userId, type as EmailType))
  const got = Buffer.from(sig)
  if (want.length !== got.length || !timingSafeEqual(want, got)) return null
  return { userId, type: type as EmailType }
}
