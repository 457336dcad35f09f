import type { Sql, TxSql } from '../../db/connect.ts'
import { newId } from '../../lib/ids.ts'
import { queueAccountMail } from '../email/queries.ts'
import { seal } from '../email/sealed.ts'
import * as q from './queries.ts'
import { newLinkToken, tokenHash } from './tokens.ts'

/*
 * One-time account links (verification, address change, password reset): issued here, for the
 * account routes (modules/accounts), registration (modules/auth) and the operator's CLI, so that
 * neither of those imports the other (issue 50: accounts ↔ auth was a folder cycle).
 */
export interface IssueLink {
  userId: string
  purpose: q.LinkPurpose
  /** Where the link goes (and, for a verification, the address it proves). */
  email: string
  ttlSeconds: number
  now: Date
  /** Mail it through the outbox (sealed with `secret`, in `locale`); absent: only returned (operator CLI). */
  mail?: { secret: string; locale: string }
}

/**
 * Issues a link token: older open links of the same purpose stop working, the new one is stored
 * as its SHA-256 only, and (with `mail`) an outbox row carries it, sealed, to `email` in the
 * caller's transaction. Returns the token.
 */
export async function issueLink(tx: Sql | TxSql, o: IssueLink) {
  const token = newLinkToken()
  await q.retireLinks(tx, o.userId, [o.purpose], o.now)
  await q.insertLink(tx, {
    id: newId(),
    userId: o.userId,
    purpose: o.purpose,
    hash: tokenHash(token),
    email: o.email,
    now: o.now,
    expiresAt: new Date(o.now.getTime() + o.ttlSeconds * 1000),
  })
  if (o.mail) {
    await queueAccountMail(tx, {
      id: newId(),
      kind: o.purpose,
      userId: o.userId,
      to: o.email,
      locale: o.mail.locale,
      secret: seal(o.mail.secret, token),
      params: { ttlSeconds: String(o.ttlSeconds) },
      now: o.now,
    })
  }
  return token
}
