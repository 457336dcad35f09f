// Loaded once per `bun test` process before any test file (bunfig.toml).
process.env.LOG_LEVEL ??= 'silent'

// Boot and migrate the test database here, once, so no test or hook pays for it inside
// Bun's 5-second per-test timeout (bunfig.toml has no timeout key and setDefaultTimeout
// only reaches the file that calls it).
import { testDatabase } from './harness.ts'

await testDatabase()
