import { chmod, mkdir } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * With the embedded database the service is a single instance, so it may generate its JWT
 * secret itself: once, kept in DATA_DIR so logins survive restarts.
 */
export async function embeddedJwtSecret(dataDir: string): Promise<string> {
  const path = join(dataDir, 'jwt-secret')
  const file = Bun.file(path)
  if (await file.exists()) {
    const s = (await file.text()).trim()
    if (s.length >= 32) return s
  }
  await mkdir(dataDir, { recursive: true })
  const secret = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString('base64url')
  await Bun.write(path, secret + '\n')
  await chmod(path, 0o600)
  return secret
}
