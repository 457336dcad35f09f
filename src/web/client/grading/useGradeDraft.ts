import { useCallback, useEffect, useRef, useState } from 'react'
import { readDraft, useDraftStorageKey, writeDraft } from '../ui/useDraft.ts'

/**
 * The grade being typed for one submission (issue 29.8): kept as a draft (ui/useDraft.ts,
 * per user, in localStorage) while it differs from what is saved, so moving to the next
 * student and back, or a reload, loses nothing. `markSaved` after the server took it.
 * `gradeDraftKey` names the draft; the roster asks `hasGradeDraft` to mark unsaved students.
 */
export const gradeDraftKey = (submissionId: string) => `grade:${submissionId}`

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

/** Listeners told when any grade draft appears or goes (the roster's "Unsaved" marks). */
const listeners = new Set<() => void>()
export function onGradeDraftsChange(fn: () => void) {
  listeners.add(fn)
  return () => void listeners.delete(fn)
}
const changed = () => listeners.forEach((fn) => fn())

export function useGradeDraft<T>(submissionId: string, initial: T) {
  const storageKey = useDraftStorageKey(gradeDraftKey(submissionId))
  const [baseline, setBaseline] = useState(initial)
  const [value, setState] = useState<T>(() => readDraft<T>(storageKey) ?? initial)
  const loadedFor = useRef(storageKey)
  useEffect(() => {
    if (loadedFor.current === storageKey) return
    loadedFor.current = storageKey
    const d = readDraft<T>(storageKey)
    if (d !== undefined) setState(d)
  }, [storageKey])
  const set = useCallback(
    (v: T | ((old: T) => T)) => {
      setState((old) => {
        const next = typeof v === 'function' ? (v as (old: T) => T)(old) : v
        writeDraft(storageKey, same(next, baseline) ? undefined : next)
        queueMicrotask(changed)
        return next
      })
    },
    [storageKey, baseline],
  )
  const markSaved = useCallback(
    (saved: T) => {
      setBaseline(saved)
      setState((current) => {
        writeDraft(storageKey, same(current, saved) ? undefined : current)
        return current
      })
      queueMicrotask(changed)
    },
    [storageKey],
  )
  return { value, set, dirty: !same(value, baseline), markSaved }
}
