/**
 * A course's visual identity: a colour derived from its id (stable, no storage) and the
 * initials of its title. Decorative: the title is always written next to it.
 */
const HUES = [212, 262, 330, 12, 32, 150, 175, 195, 285, 350, 95, 230]

export function courseHue(id: string) {
  let h = 0
  for (let i = 0; i < id.length; i++) h = (h * 31 + id.charCodeAt(i)) >>> 0
  return HUES[h % HUES.length]!
}

export function courseInitials(title: string) {
  const words = title.trim().split(/\s+/).filter(Boolean)
  if (words.length === 0) return '?'
  // CJK titles: the first two characters read better than "initials".
  if (/[\u3400-\u9fff]/.test(words[0]![0]!)) return Array.from(words.join('')).slice(0, 2).join('')
  return (words.length === 1 ? Array.from(words[0]!).slice(0, 2).join('') : words[0]![0]! + words[1]![0]!).toUpperCase()
}

export function CourseBadge({ id, title, size = 'md' }: { id: string; title: string; size?: 'sm' | 'md' | 'lg' }) {
  return (
    <span className={`course-badge course-badge-${size} hue-${courseHue(id)}`} aria-hidden="true" data-testid="course-badge">
      {courseInitials(title)}
    </span>
  )
}
