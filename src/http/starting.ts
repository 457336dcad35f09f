import { DEPENDENCY_RETRY_AFTER_SECONDS } from './errors.ts'

/**
 * What the port answers while the service waits for its database at start (issue 49): every
 * request 503 in the envelope with Retry-After, `/status/health` and `/status/ready` with their
 * usual DOWN bodies, so a load balancer or an orchestrator sees an instance that is starting,
 * not a refused port. `stop()` frees the port for the app (a connect in the few milliseconds
 * between is refused and retried by the client).
 */
export function serveWhileStarting(at: { port: number; hostname: string }, onListenError: (e: unknown) => never) {
  const body = (data: unknown) =>
    new Response(JSON.stringify({ code: 50300, message: 'The database cannot be reached.', data }), {
      status: 503,
      headers: { 'content-type': 'application/json; charset=utf-8', 'retry-after': String(DEPENDENCY_RETRY_AFTER_SECONDS), 'cache-control': 'no-store' },
    })
  let server: ReturnType<typeof Bun.serve>
  try {
    server = Bun.serve({
      ...at,
      reusePort: false,
      fetch(request) {
        const path = new URL(request.url).pathname
        if (path === '/status/health') return body({ status: 'DOWN', database: 'DOWN' })
        if (path === '/status/ready') return body({ status: 'NOT_READY', database: 'DOWN', draining: false })
        return body(null)
      },
    })
  } catch (e) {
    onListenError(e)
  }
  return {
    stop() {
      server.stop(true)
    },
  }
}
