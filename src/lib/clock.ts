/** Time is a dependency: services take `now` explicitly, the app reads it from here. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

/** A clock tests can set and move. */
export class ManualClock implements Clock {
  private t: number
  constructor(start: Date | string = '2026-11-22T08:00:00.000Z') {
    this.t = new Date(start).getTime()
  }
  now() {
    return new Date(this.t)
  }
  set(d: Date | string) {
    this.t = new Date(d).getTime()
  }
  advance(ms: number) {
    this.t += ms
  }
}
