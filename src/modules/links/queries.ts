import type { Sql, TxSql } from '../../db/connect.ts'

export type LinkPurpose = 'VERIFY_EMAIL' | 'CHANGE_EMAIL' | 'RESET_PASSWORD'

/** Older open links of this purpose stop working when a newer one is issued (or the purpose is settled). */
export async function retireLinks(tx: Sql | TxSql, userId: string, purposes: LinkPurpose[], now: Date) {
  await tx`update email_tokens set used_at = ${now} where user_id = ${userId} and purpose in ${tx(purposes)} and used_at is null`
}

export async function insertLink(
  tx: Sql | TxSql,
  t: { id: string; userId: string; purpose: LinkPurpose; hash: Uint8Array; email: string; now: Date; expiresAt: Date },
) {
  await tx`
    insert into email_tokens (id, user_id, purpose, token_hash, email, created_at, expires_at)
    values (${t.id}, ${t.userId}, ${t.purpose}, ${Buffer.from(t.hash)}, ${t.email}, ${t.now}, ${t.expiresAt})`
}
