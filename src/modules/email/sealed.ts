import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

/*
 * A link token waits in the outbox until its mail is sent. The database keeps only its SHA-256
 * in email_tokens; the outbox copy is sealed with AES-256-GCM under a key derived from the
 * service secret (all instances share it), and erased once the row is sent or given up. A
 * database dump alone therefore never holds a usable link.
 */
const keyOf = (secret: string) => createHash('sha256').update(`email-outbox-token:${secret}`).digest()

/** iv (12) ‖ ciphertext ‖ tag (16). */
export function seal(secret: string, plain: string): Uint8Array {
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', keyOf(secret), iv)
  const body = Buffer.concat([c.update(plain, 'utf8'), c.final()])
  return Buffer.concat([iv, body, c.getAuthTag()])
}

export function unseal(secret: string, sealed: Uint8Array): string | null {
  try {
    const b = Buffer.from(sealed)
    const d = createDecipheriv('aes-256-gcm', keyOf(secret), b.subarray(0, 12))
    d.setAuthTag(b.subarray(b.length - 16))
    return Buffer.concat([d.update(b.subarray(12, b.length - 16)), d.final()]).toString('utf8')
  } catch {
    return null
  }
}
