import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT, jwtVerify, createLocalJWKSet, type JWTPayload } from 'jose'
import type { Sql, TxSql } from '../../db/connect.ts'

/**
 * The platform's RS256 keys (LTI 1.3 ID tokens, AGS/NRPS access tokens), kept in PostgreSQL so
 * every instance signs with the same key and publishes the same set. The newest key signs; after
 * ROTATE_AFTER_MS a new key is made and the old one is still published for KEEP_OLD_MS (longer
 * than any token it signed lives), then deleted.
 */
export const ROTATE_AFTER_MS = 30 * 24 * 3600_000
/** The longest a token signed by the platform lives (access tokens: 1 hour). */
export const TOKEN_TTL_S = 3600
export const KEEP_OLD_MS = 2 * TOKEN_TTL_S * 1000

type Db = Sql | TxSql

interface KeyRow {
  kid: string
  private_jwk: JWK
  public_jwk: JWK
  created_at: Date
  retire_after: Date | null
}

const imported = new Map<string, CryptoKey>()

async function privateKey(row: KeyRow) {
  let k = imported.get(row.kid)
  if (!k) {
    k = (await importJWK(row.private_jwk, 'RS256')) as CryptoKey
    imported.set(row.kid, k)
  }
  return k
}

async function newKey(sql: Db, now: Date) {
  const { privateKey: priv, publicKey: pub } = await generateKeyPair('RS256', { extractable: true, modulusLength: 2048 })
  const kid = crypto.randomUUID()
  const privateJwk = { ...(await exportJWK(priv)), kid, alg: 'RS256', use: 'sig' }
  const publicJwk = { ...(await exportJWK(pub)), kid, alg: 'RS256', use: 'sig' }
  await sql`insert into lti_keys (kid, private_jwk, public_jwk, created_at)
            values (${kid}, ${sql.json(privateJwk as any)}, ${sql.json(publicJwk as any)}, ${now})`
}

/**
 * Makes a new signing key (the first one, or the next when the current one is older than
 * ROTATE_AFTER_MS, or at once with `force`); the old ones keep being published until their
 * tokens expired. One instance at a time (advisory lock), so two instances never both rotate.
 */
export async function rotate(sql: Sql, now: Date, force = false) {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtext('lti_keys'))`
    const [current] = await tx<KeyRow[]>`select * from lti_keys where retire_after is null order by created_at desc limit 1`
    if (current && !force && now.getTime() - current.created_at.getTime() < ROTATE_AFTER_MS) return
    await tx`update lti_keys set retire_after = ${new Date(now.getTime() + KEEP_OLD_MS)} where retire_after is null`
    await newKey(tx, now)
    await tx`delete from lti_keys where retire_after < ${now}`
  })
}

async function signingKey(sql: Sql, now: Date): Promise<KeyRow> {
  const [row] = await sql<KeyRow[]>`select * from lti_keys where retire_after is null order by created_at desc limit 1`
  if (row && now.getTime() - row.created_at.getTime() < ROTATE_AFTER_MS) return row
  await rotate(sql, now)
  return signingKey(sql, now)
}

/** The published key set: the signing key and the retired ones still within their tokens' life. */
export async function jwks(sql: Sql, now: Date): Promise<{ keys: JWK[] }> {
  await signingKey(sql, now)
  const rows = await sql<{ public_jwk: JWK }[]>`
    select public_jwk from lti_keys where retire_after is null or retire_after >= ${now} order by created_at desc`
  return { keys: rows.map((r) => r.public_jwk) }
}

/** Signs `payload` (iat and exp from `now`) with the current key. */
export async function sign(sql: Sql, payload: JWTPayload, now: Date, ttlSeconds: number) {
  const key = await signingKey(sql, now)
  const iat = Math.floor(now.getTime() / 1000)
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'RS256', kid: key.kid, typ: 'JWT' })
    .setIssuedAt(iat)
    .setExpirationTime(iat + ttlSeconds)
    .sign(await privateKey(key))
}

/** Verifies a token this platform signed (its access tokens), against the published set. */
export async function verifyOwn(sql: Sql, token: string, now: Date, opts: { issuer: string; audience: string }) {
  const set = createLocalJWKSet(await jwks(sql, now))
  const { payload } = await jwtVerify(token, set, { algorithms: ['RS256'], currentDate: now, issuer: opts.issuer, audience: opts.audience })
  return payload
}
