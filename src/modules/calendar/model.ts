import { z } from 'zod'

export const CalendarFeed = z
  .object({ url: z.string().meta({ example: 'https://learn.example.edu/calendar/3q2-…-x9.ics' }) })
  .meta({ id: 'CalendarFeed', description: 'Your private iCalendar feed of homework and experiment deadlines. Anyone with the URL can read it: rotate it if it leaks.' })

export const FeedParams = z.object({ file: z.string().max(200) })
