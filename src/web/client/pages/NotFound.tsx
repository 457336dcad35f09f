import { Link } from 'react-router'
import { useT } from '../i18n/index.ts'
import '../layout/shell.ts'
import { usePageTitle } from '../layout/usePageTitle.ts'

export default function NotFoundPage() {
  const { t } = useT('shell')
  usePageTitle(t('notFound.title'))
  return (
    <main id="main" className="container narrow">
      <h1>{t('notFound.title')}</h1>
      <p>{t('notFound.body')}</p>
      <p>
        <Link to="/courses">{t('goToCourses')}</Link>
      </p>
    </main>
  )
}
