/**
 * Invite codes: 8 characters from 31 symbols that are hard to confuse when read aloud or
 * copied by hand (no 0/O, 1/I/L). 31^8 ≈ 8.5e11 codes, drawn from the system CSPRNG.
 */
export const INVITE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789'
export const INVITE_LENGTH = 8

// The largest multiple of the alphabet size below 256: bytes above it are redrawn, so every
// symbol is equally likely (no modulo bias).
const LIMIT = 256 - (256 % INVITE_ALPHABET.length)

export type CodeGenerator = () => string

export const randomInviteCode: CodeGenerator = () => {
  let code = ''
  const buf = new Uint8Array(16)
  while (code.length < INVITE_LENGTH) {
    crypto.getRandomValues(buf)
    for (const b of buf) {
      if (b < LIMIT && code.length < INVITE_LENGTH) code += INVITE_ALPHABET[b % INVITE_ALPHABET.length]
    }
  }
  return code
}

/** What people type: surrounding spaces and lower case are accepted. */
export const normaliseInviteCode = (input: string) => input.trim().toUpperCase()
