import { useEffect } from 'react'
import { useT } from '../i18n/index.ts'

export function usePageTitle(title: string | undefined) {
  const { t } = useT()
  useEffect(() => {
    document.title = title ? t('pageTitle', { title }) : t('brand')
  }, [title, t])
}
