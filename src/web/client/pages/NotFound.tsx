import { Link } from 'react-router'
import { usePageTitle } from '../layout/usePageTitle.ts'

export default function NotFoundPage() {
  usePageTitle('Page not found')
  return (
    <main id="main" className="container narrow">
      <h1>Page not found</h1>
      <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
      <p>
        <Link to="/courses">Go to my courses</Link>
      </p>
    </main>
  )
}
