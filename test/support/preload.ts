// Loaded before every test file (bunfig.toml). Tests are quiet unless asked otherwise.
process.env.LOG_LEVEL ??= 'silent'
