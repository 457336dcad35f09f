import { useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react'

/**
 * A row of tabs that scrolls sideways when it does not fit (phone width), with a visible
 * chevron on each side that has more tabs (issue 29.10: a cut that fell between two short
 * Chinese labels hid the rest with no hint). The chevrons scroll by most of a screen for touch
 * and mouse; keyboard users reach every tab with Tab, and the active one is kept in view.
 */
export function ScrollingTabs({ label, className, activeKey, children }: { label: string; className: string; activeKey: string; children: ReactNode }) {
  const ref = useRef<HTMLElement>(null)
  const [more, setMore] = useState({ left: false, right: false })
  const measure = () => {
    const el = ref.current
    if (!el) return
    const left = el.scrollLeft > 1
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1
    setMore((m) => (m.left === left && m.right === right ? m : { left, right }))
  }
  useLayoutEffect(() => {
    const el = ref.current
    if (!el) return
    measure()
    el.addEventListener('scroll', measure, { passive: true })
    const resized = new ResizeObserver(measure)
    resized.observe(el)
    return () => {
      el.removeEventListener('scroll', measure)
      resized.disconnect()
    }
  }, [])
  // Labels change with the language: measure again after every render (cheap, no layout loop).
  useEffect(measure)
  useEffect(() => {
    const el = ref.current
    const active = el?.querySelector<HTMLElement>('[aria-current="page"]')
    if (!el || !active || el.scrollWidth <= el.clientWidth) return
    // The row starts at its first tab whenever the active one is in view from there (issue
    // 56.5f: "Overview" cut to "erview"); otherwise the active tab comes in, clear of the chevron.
    const left = active.offsetLeft - el.offsetLeft
    el.scrollTo({ left: left + active.offsetWidth <= el.clientWidth - 32 ? 0 : Math.max(0, left - 32) })
  }, [activeKey])
  const scroll = (dir: 1 | -1) => ref.current?.scrollBy({ left: dir * ref.current.clientWidth * 0.7, behavior: 'smooth' })
  return (
    <div className="tabs-frame" data-more-left={more.left || undefined} data-more-right={more.right || undefined}>
      <nav className={className} aria-label={label} ref={ref}>
        {children}
      </nav>
      {more.left && (
        <button type="button" className="tabs-more tabs-more-left" aria-hidden="true" tabIndex={-1} onClick={() => scroll(-1)}>
          ‹
        </button>
      )}
      {more.right && (
        <button type="button" className="tabs-more tabs-more-right" aria-hidden="true" tabIndex={-1} onClick={() => scroll(1)}>
          ›
        </button>
      )}
    </div>
  )
}
