/**
 * Shows rich text exactly as the API returns it. The API sanitises every rich-text field on
 * write against an allow-list, so this renders stored, sanitised HTML, never a person's raw input.
 */
export function RichText({ html, className = '' }: { html: string | null | undefined; className?: string }) {
  if (!html) return null
  return <div className={`rich ${className}`} dangerouslySetInnerHTML={{ __html: html }} />
}
