import { describe, expect, test } from 'bun:test'
import postgres from 'postgres'
import type { Lifecycle } from '../../src/deps.ts'
import { testApp } from '../support/harness.ts'

describe('/status/ready', () => {
  test('200 READY while serving; 503 (50300) NOT_READY once draining; /status/health unchanged', async () => {
    const lifecycle: Lifecycle = { draining: false }
    const { api } = await testApp({ deps: { lifecycle } })
    const ready = await api.get('//status/ready')
    expect(ready.status).toBe(200)
    expect(ready.body).toEqual({ code: 0, message: 'OK', data: { status: 'READY', database: 'UP', draining: false } })

    lifecycle.draining = true
    const draining = await api.get('//status/ready')
    expect(draining.status).toBe(503)
    expect(draining.code).toBe(50300)
    expect(draining.data).toEqual({ status: 'NOT_READY', database: 'UP', draining: true })
    const health = await api.get('//status/health')
    expect(health.status).toBe(200)
    expect(health.data).toEqual({ status: 'UP', database: 'UP' })
  })

  test('is documented in the OpenAPI document with its 200 and 503 answers', async () => {
    const { app } = await testApp()
    const doc = (await (await app.handle(new Request('http://localhost/v3/api-docs'))).json()) as any
    const op = doc.paths['/status/ready']?.get
    expect(op?.summary).toBe('Readiness check (anonymous)')
    expect(Object.keys(op?.responses ?? {})).toEqual(expect.arrayContaining(['200', '503']))
  })

  test('503 NOT_READY when the database cannot be reached, within 2 s', async () => {
    // A pool pointing at a closed port: connects are refused.
    const port = (() => {
      const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
      const p = s.port
      s.stop(true)
      return p
    })()
    const dead = postgres(`postgres://postgres@127.0.0.1:${port}/none`, { max: 1, connect_timeout: 1, onnotice: () => {} })
    const { api } = await testApp({ deps: { sql: dead } })
    const started = performance.now()
    const r = await api.get('//status/ready')
    expect(performance.now() - started).toBeLessThan(2000)
    expect(r.status).toBe(503)
    expect(r.data).toEqual({ status: 'NOT_READY', database: 'DOWN', draining: false })
    await dead.end({ timeout: 0 })
  })
})
