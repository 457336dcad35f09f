import { createHash, randomBytes } from 'node:crypto'

/** A link token: 256 random bits, base64url (43 characters). Only its SHA-256 is stored. */
export const newLinkToken = () => randomBytes(32).toString('base64url')

export const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest()

/** Anything else cannot be a token we issued; it is refused without a lookup. */
export const looksLikeToken = (t: string) => /^[A-Za-z0-9_-]{43}$/.test(t)
