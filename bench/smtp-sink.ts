/**
 * A local SMTP server for bench/probe-email.ts, in a process of its own: the `smtp-server`
 * package with its defaults (including the 100 ms delay before the greeting of every new
 * connection), accepting every mail. Prints `LISTENING <port>`; on SIGTERM prints
 * `SINK {"received":…,"unique":…,"cpuMs":…}` (mails, distinct Message-IDs, its CPU time) and exits.
 */
import { SMTPServer } from 'smtp-server'

let received = 0
const ids = new Set<string>()
const server = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  maxClients: 1000,
  onData(stream, _session, cb) {
    let head = ''
    stream.on('data', (c: Buffer) => {
      if (head.length < 4096) head += c.toString('utf8')
    })
    stream.on('end', () => {
      received++
      const id = /^Message-ID:\s*(\S+)/im.exec(head)?.[1]
      if (id) ids.add(id)
      cb()
    })
  },
})
server.listen(0, '127.0.0.1', () => console.log(`LISTENING ${(server.server.address() as { port: number }).port}`))
process.on('SIGTERM', () => {
  const cpu = process.cpuUsage()
  console.log(`SINK ${JSON.stringify({ received, unique: ids.size, cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}`)
  process.exit(0)
})
