import type { Socket, TCPSocketListener } from 'bun'

/**
 * A TCP proxy between the service and PostgreSQL that a test can cut and restore, to simulate
 * an outage without touching the server: `cut()` drops every open connection and stops
 * listening (new connects are refused, as with a stopped server); `restore()` listens again
 * on the same port.
 */
export interface TcpProxy {
  port: number
  /** Client connections accepted so far. */
  readonly connections: number
  cut(): void
  restore(): void
  close(): void
}

interface Side {
  peer?: Socket<Side>
  /** Bytes not yet written to this socket (backpressure, or the upstream still connecting). */
  pending: Uint8Array[]
  /** The client connection's number, from 0 (client sides only). */
  index?: number
}

export interface TcpProxyOptions {
  /**
   * Sees every chunk a client sends, with its connection's number (from 0). Returning bytes
   * answers the client with them instead of forwarding, and closes that connection at both
   * ends: a server that dies in the middle of a conversation.
   */
  intercept?: (bytes: Uint8Array, connection: number) => Uint8Array | undefined
}

function send(to: Socket<Side>, bytes: Uint8Array) {
  const d = to.data
  if (d.pending.length) return void d.pending.push(bytes)
  const n = to.write(bytes)
  if (n < bytes.length) d.pending.push(bytes.subarray(Math.max(0, n)))
}

function flush(s: Socket<Side>) {
  const d = s.data
  while (d.pending.length) {
    const head = d.pending[0]!
    const n = s.write(head)
    if (n < head.length) {
      d.pending[0] = head.subarray(Math.max(0, n))
      return
    }
    d.pending.shift()
  }
}

export async function tcpProxy(target: { hostname: string; port: number }, opts: TcpProxyOptions = {}): Promise<TcpProxy> {
  const open = new Set<Socket<Side>>()
  let listener: TCPSocketListener<Side> | undefined
  let port = 0
  let connections = 0

  const listen = () => {
    listener = Bun.listen<Side>({
      hostname: '127.0.0.1',
      port,
      socket: {
        open(client) {
          client.data = { pending: [], index: connections++ }
          open.add(client)
          void Bun.connect<Side>({
            hostname: target.hostname,
            port: target.port,
            data: { pending: [], peer: client },
            socket: {
              open(upstream) {
                open.add(upstream)
                // Bytes the client sent while the upstream connected go first.
                const early = client.data.pending
                client.data.pending = []
                client.data.peer = upstream
                for (const b of early) send(upstream, b)
              },
              data(upstream, bytes) {
                send(client, bytes)
              },
              drain: flush,
              close(upstream) {
                open.delete(upstream)
                client.end()
              },
              error(upstream) {
                upstream.end()
              },
            },
          }).catch(() => client.end())
        },
        data(client, bytes) {
          const answer = opts.intercept?.(bytes, client.data.index!)
          if (answer) {
            send(client, answer)
            client.end()
            client.data.peer?.end()
            return
          }
          const up = client.data.peer
          if (up) send(up, bytes)
          else client.data.pending.push(bytes)
        },
        drain: flush,
        close(client) {
          open.delete(client)
          client.data.peer?.end()
        },
        error(client) {
          client.end()
        },
      },
    })
    port = listener.port
  }
  listen()

  const cut = () => {
    listener?.stop(true)
    listener = undefined
    for (const s of open) s.terminate()
    open.clear()
  }
  return {
    get port() {
      return port
    },
    get connections() {
      return connections
    },
    cut,
    restore() {
      if (!listener) listen()
    },
    close: cut,
  }
}

/** A proxy in front of the PostgreSQL at `databaseUrl`, and that URL pointed at the proxy. */
export async function databaseProxy(databaseUrl: string, opts: TcpProxyOptions = {}): Promise<{ proxy: TcpProxy; url: string }> {
  const target = new URL(databaseUrl)
  const proxy = await tcpProxy({ hostname: target.hostname, port: Number(target.port || 5432) }, opts)
  const via = new URL(databaseUrl)
  via.hostname = '127.0.0.1'
  via.port = String(proxy.port)
  return { proxy, url: via.toString() }
}

/** One timed request: when it started, its status and envelope code, and how long it took. */
export interface Sample {
  at: number
  status: number
  code?: number
  ms: number
}

/** One request that never throws: a network failure is status 0. */
export async function timed(url: string, init: RequestInit = {}): Promise<Sample> {
  const at = performance.now()
  try {
    const r = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) })
    const body = (await r.json().catch(() => ({}))) as { code?: number }
    return { at, status: r.status, code: body.code, ms: performance.now() - at }
  } catch {
    return { at, status: 0, ms: performance.now() - at }
  }
}

/** `clients` loops calling `next()` until `stop()` says so; every sample is kept. */
export function load(clients: number, next: (i: number) => Promise<Sample>) {
  const samples: Sample[] = []
  let running = true
  const loops = Array.from({ length: clients }, async (_, i) => {
    while (running) samples.push(await next(i))
  })
  return {
    samples,
    async stop() {
      running = false
      await Promise.all(loops)
      return samples
    },
  }
}

/** A size-limited tmpfs of the test's own (`unmount()` when done), to fill until ENOSPC. */
export interface SmallDisk {
  dir: string
  unmount(): Promise<void>
}

/**
 * Mounts a `sizeMiB` tmpfs on a fresh folder, or says why it cannot (mounting needs root, or
 * CAP_SYS_ADMIN in a container): the caller skips with that reason.
 */
export async function mountSmallDisk(sizeMiB: number): Promise<SmallDisk | string> {
  const { mkdtemp, rm } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const { join } = await import('node:path')
  const dir = await mkdtemp(join(tmpdir(), 'cls-small-disk-'))
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stderr: 'pipe' })
  if (mount.exitCode !== 0) {
    await rm(dir, { recursive: true, force: true })
    return `cannot mount a tmpfs here (${mount.stderr.toString().trim() || `mount exited ${mount.exitCode}`}); run the tests as root to cover the full disk`
  }
  return {
    dir,
    async unmount() {
      Bun.spawnSync(['umount', '-l', dir])
      await rm(dir, { recursive: true, force: true })
    },
  }
}
