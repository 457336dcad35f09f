import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode, type RefObject } from 'react'

/**
 * `?taskId=` (the actionPath of a homework reminder) opens and scrolls to that task. Several
 * sections may show the same task; the first one to mount claims it.
 */
interface FocusState {
  taskId: string | null
  claim: (taskId: string) => boolean
}
const FocusContext = createContext<FocusState>({ taskId: null, claim: () => false })

export function FocusTaskProvider({ taskId, children }: { taskId: string | null; children: ReactNode }) {
  const claimed = useRef<string | null>(null)
  const value = useMemo<FocusState>(() => {
    claimed.current = null
    return {
      taskId,
      claim: (id) => {
        if (id !== taskId || claimed.current === id) return false
        claimed.current = id
        return true
      },
    }
  }, [taskId])
  return <FocusContext.Provider value={value}>{children}</FocusContext.Provider>
}

/** Open/closed state of a task's <details>, opened and scrolled into view when it is the focused task. */
export function useTaskDisclosure(taskId: string, ref: RefObject<HTMLElement | null>) {
  const focus = useContext(FocusContext)
  const [open, setOpen] = useState(false)
  useEffect(() => {
    if (focus.taskId === taskId && focus.claim(taskId)) {
      setOpen(true)
      requestAnimationFrame(() => {
        ref.current?.scrollIntoView({ block: 'start' })
        ref.current?.querySelector('summary')?.focus()
      })
    }
  }, [focus, taskId, ref])
  return [open, setOpen] as const
}
