/**
 * LTI tools for every course, by the operator (docs/lti.md):
 *
 *   bun run src/cli/lti-tool.ts add '<json>'      register: { name, loginUrl, launchUrl, jwksUrl, redirectUris?, deepLinkingUrl?, sendName?, sendEmail?, scopes? }
 *   bun run src/cli/lti-tool.ts list              the operator's tools
 *   bun run src/cli/lti-tool.ts remove <toolId>   remove one (its LTI tasks stay, no longer launchable)
 *   bun run src/cli/lti-tool.ts rotate-keys       a new platform signing key now (the old one stays published until its tokens expired)
 *
 * `add` prints the client id, the deployment id and the platform's URLs to configure in the tool.
 * Same database settings as the service; PUBLIC_URL is the issuer.
 */
import { ConfigError, loadConfig } from '../config.ts'
import { connectDatabase, type Sql } from '../db/connect.ts'
import { migrate } from '../db/migrate.ts'
import { rotate } from '../modules/lti/keys.ts'
import { ToolBody } from '../modules/lti/model.ts'
import { registerTool, toTool, type ToolRow } from '../modules/lti/service.ts'

export async function ltiToolCommand(sql: Sql, args: string[], issuer: string, now = new Date()): Promise<unknown> {
  const [command, arg] = args
  switch (command) {
    case 'add': {
      let raw: unknown
      try {
        raw = JSON.parse(arg ?? '')
      } catch {
        throw new Error('add takes the tool as JSON')
      }
      const parsed = ToolBody.safeParse(raw)
      if (!parsed.success) throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
      return toTool(await registerTool(sql, null, null, parsed.data, now), issuer)
    }
    case 'list':
      return (await sql<ToolRow[]>`select * from lti_tools where course_id is null order by created_at, id`).map((r) => toTool(r, issuer))
    case 'remove': {
      if (!arg || !/^[0-9a-f-]{36}$/i.test(arg)) throw new Error('remove takes a tool id')
      const gone = await sql`delete from lti_tools where id = ${arg} and course_id is null returning id`
      if (!gone.length) throw new Error('no operator tool with that id')
      return { removed: arg }
    }
    case 'rotate-keys':
      await rotate(sql, now, true)
      return { rotated: true }
    default:
      throw new Error('usage: bun run src/cli/lti-tool.ts add <json> | list | remove <toolId> | rotate-keys')
  }
}

if (import.meta.main) {
  try {
    const config = loadConfig()
    const db = await connectDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 1 })
    await migrate(db.sql)
    const issuer = (config.publicUrl ?? `http://localhost:${config.port}`).replace(/\/+$/, '')
    const out = await ltiToolCommand(db.sql, process.argv.slice(2), issuer).finally(() => db.close())
    console.log(JSON.stringify(out, null, 2))
    process.exit(0)
  } catch (e) {
    console.error(e instanceof ConfigError ? e.message : `lti-tool: ${(e as Error).message}`)
    process.exit(1)
  }
}
