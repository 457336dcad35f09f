import { useCallback, useEffect, useState } from 'react'
import { useQueryClient } from '@tanstack/react-query'
import { keys } from '../queries.ts'
import type { User } from '../types.ts'

/**
 * A form value kept in localStorage under a per-user key while it is being edited, so typed
 * work survives the redirect to /login and back (and a reload). `clear()` after a successful
 * submit. `key` null: plain state, nothing stored.
 * (Shared API with web-student: useDraft<T>(key, initial) → [value, setValue, clear].)
 */
const PREFIX = 'cls.draft'

export function useDraft<T>(key: string | null, initial: T): [value: T, setValue: (v: T) => void, clear: () => void] {
  const queryClient = useQueryClient()
  const userId = queryClient.getQueryData<User>(keys.me)?.id ?? 'anonymous'
  const storageKey = key == null ? null : `${PREFIX}:${userId}:${key}`
  const [value, setState] = useState<T>(() => {
    if (!storageKey) return initial
    try {
      const raw = localStorage.getItem(storageKey)
      return raw == null ? initial : (JSON.parse(raw) as T)
    } catch {
      return initial
    }
  })
  useEffect(() => {
    if (!storageKey) return
    try {
      localStorage.setItem(storageKey, JSON.stringify(value))
    } catch {
      // storage full or blocked: the draft lives as long as the page
    }
  }, [storageKey, value])
  const clear = useCallback(() => {
    if (storageKey) {
      try {
        localStorage.removeItem(storageKey)
      } catch {
        // ignore
      }
    }
    setState(initial)
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [storageKey])
  return [value, setState, clear]
}
