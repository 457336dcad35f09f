import { setDefaultTimeout } from 'bun:test'

// Loaded before every test file (bunfig.toml). Tests are quiet unless asked otherwise.
process.env.LOG_LEVEL ??= 'silent'
// The embedded PostgreSQL boots inside the first test that needs it (a few seconds, more on
// a busy 2-core machine); this is a ceiling against hangs, not a performance target.
setDefaultTimeout(60_000)
