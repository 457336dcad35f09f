import { useCallback, useEffect, useRef, useState } from 'react'
import { useMe } from '../queries.ts'

/**
 * Drafts of typed work, kept in localStorage under a per-user key, so a login that ends
 * mid-edit (the 401 redirect to /login?next=… and back) loses nothing. A form clears its
 * draft after a successful submit. `key` null: plain state, nothing stored.
 */
const PREFIX = 'cls.draft.'

export const draftStorageKey = (userId: string, key: string) => `${PREFIX}${userId}.${key}`

export function readDraft<T>(storageKey: string | null): T | undefined {
  if (!storageKey) return undefined
  try {
    const raw = localStorage.getItem(storageKey)
    return raw == null ? undefined : (JSON.parse(raw) as { v: T }).v
  } catch {
    return undefined
  }
}

export function writeDraft<T>(storageKey: string | null, value: T | undefined) {
  if (!storageKey) return
  try {
    if (value === undefined) localStorage.removeItem(storageKey)
    else localStorage.setItem(storageKey, JSON.stringify({ v: value, at: Date.now() }))
  } catch {
    // storage full or blocked: the draft lives only in memory
  }
}

/** The signed-in user's storage key for a draft, or null (no key, or nobody signed in yet). */
export function useDraftStorageKey(key: string | null): string | null {
  const me = useMe().data
  return key && me ? draftStorageKey(me.id, key) : null
}

export function useDraft<T>(key: string | null, initial: T): [value: T, setValue: (v: T) => void, clear: () => void] {
  const storageKey = useDraftStorageKey(key)
  const initialRef = useRef(initial)
  const [value, setState] = useState<T>(() => readDraft<T>(storageKey) ?? initial)
  const loadedFor = useRef(storageKey)
  // The key may become known after the first render (user loaded, another task): load its draft.
  useEffect(() => {
    if (loadedFor.current === storageKey) return
    loadedFor.current = storageKey
    setState(readDraft<T>(storageKey) ?? initialRef.current)
  }, [storageKey])
  const setValue = useCallback(
    (v: T) => {
      setState(v)
      writeDraft(storageKey, v)
    },
    [storageKey],
  )
  const clear = useCallback(() => {
    setState(initialRef.current)
    writeDraft(storageKey, undefined)
  }, [storageKey])
  return [value, setValue, clear]
}
