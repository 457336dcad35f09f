import type { Course } from '../types.ts'

/**
 * What every management tab receives. Its own module, so pages/Manage.tsx imports the tabs and
 * the tabs import this, with no cycle between the page and its tabs.
 */
export interface TabProps {
  course: Course
}
