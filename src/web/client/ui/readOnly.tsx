import { createContext, useContext, type ReactNode } from 'react'

/**
 * An archived course is read-only (API-CONTRACT, "Terms"): its pages say so once and offer no
 * form that the API would refuse only after the typing (issue 56.3). The course pages provide
 * this; forms and the rich-text editor read it.
 */
const ReadOnly = createContext(false)

export const useReadOnly = () => useContext(ReadOnly)

export function ReadOnlyProvider({ readOnly, children }: { readOnly: boolean; children: ReactNode }) {
  return <ReadOnly.Provider value={readOnly}>{children}</ReadOnly.Provider>
}

/** Every control inside is disabled while read-only (a disabled fieldset); links still work. */
export function ReadOnlyScope({ children }: { children: ReactNode }) {
  const readOnly = useReadOnly()
  return (
    <fieldset className="read-only-scope" disabled={readOnly} data-read-only={readOnly || undefined}>
      {children}
    </fieldset>
  )
}
