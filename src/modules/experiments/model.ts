import { MAX_FILES, SubmissionFile } from '../../storage/submission-files.ts'
import { uploadedFile } from '../../storage/upload.ts'
import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { plainText } from '../../http/text.ts'
import { GradeBody } from '../../lib/grading.ts'
import { Rubric, RubricChoice } from '../rubrics/model.ts'

/** Requests accept any ISO-8601 date-time with an offset (`Z` or `+08:00`). */
const DateTimeInput = z.iso
  .datetime({ offset: true, message: 'must be an ISO-8601 date-time with an offset, e.g. 2026-12-01T23:59:00+08:00' })
  .transform((s) => new Date(s))

const Title = plainText({ min: 1, max: 200 })
const Description = z.string().max(50_000, 'must be at most 50,000 characters')

const GradeReleaseInput = z.enum(['AUTOMATIC', 'MANUAL']).meta({
  description:
    "AUTOMATIC (the default): a grade is the student's when it is saved. MANUAL: grades are kept from students until the teacher releases them (POST /experiments/{experimentId}/release). Back to AUTOMATIC while grades wait → 409 GRADES_HELD.",
})

export const ExperimentCreate = z.object({
  title: Title,
  description: Description.meta({ description: 'Rich text; sanitised on write.' }),
  dueAt: DateTimeInput,
  gradeRelease: GradeReleaseInput.optional(),
})
export type ExperimentCreate = z.infer<typeof ExperimentCreate>

export const ExperimentPatch = z
  .object({ title: Title, description: Description, dueAt: DateTimeInput, gradeRelease: GradeReleaseInput })
  .partial()
  .refine((b) => b.title !== undefined || b.description !== undefined || b.dueAt !== undefined || b.gradeRelease !== undefined, {
    message: 'give at least one of title, description, dueAt, gradeRelease',
  })
export type ExperimentPatch = z.infer<typeof ExperimentPatch>

export const ExperimentParams = z.object({ experimentId: Uuid })
export const CourseExperimentParams = z.object({ courseId: Uuid, experimentId: Uuid })
export const SubmissionParams = z.object({ submissionId: Uuid })
export { SubmissionFileQuery } from '../../storage/submission-files.ts'

export const StudentRef = z.object({ id: Uuid, username: z.string(), displayName: z.string() }).meta({ id: 'StudentRef' })

export const Submission = z
  .object({
    id: Uuid,
    experimentId: Uuid,
    student: StudentRef,
    fileName: z.string(),
    fileSize: z.number().int(),
    contentType: z.string(),
    note: z.string().nullable(),
    late: z.boolean(),
    submittedAt: IsoDateTime,
    score: z.number().nullable(),
    feedback: z.string().nullable(),
    gradedAt: IsoDateTime.nullable(),
    rubricChoices: z.array(RubricChoice).meta({ description: 'The rubric level picked per criterion when graded by rubric (for a student, only once released).' }),
    released: z.boolean().optional().meta({ description: "The teacher's view only: false while this grade waits for the experiment's release (MANUAL)." }),
    fileUrl: z.string().meta({ description: 'Download path: `/api/v1/submissions/{id}/file`.' }),
    files: z.array(SubmissionFile).meta({
      description: 'Every file of the submission in the order sent; the first is `fileName`/`fileUrl`. Each downloads at its `fileUrl` (`/api/v1/submissions/{id}/file?position=n`).',
    }),
  })
  .meta({ id: 'ExperimentSubmission' })

export const Experiment = z
  .object({
    id: Uuid,
    courseId: Uuid,
    title: z.string(),
    description: z.string(),
    dueAt: IsoDateTime,
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime.nullable(),
    gradeRelease: z.enum(['AUTOMATIC', 'MANUAL']),
    rubric: Rubric.nullable().meta({ description: 'The rubric graders pick levels of (PUT /courses/{courseId}/experiments/{experimentId}/rubric); students see it. Null: none.' }),
  })
  .meta({ id: 'Experiment' })

/** Grading an experiment submission: `{ score, feedback }`, or the rubric's levels (score computed). */
export const ExperimentGradeBody = GradeBody.extend({
  score: GradeBody.shape.score.optional().meta({ description: 'The score 0-100. Optional with `rubric` (then the chosen points ÷ the rubric\'s best × 100); given, it overrides.' }),
  rubric: z.array(RubricChoice).max(100, 'at most 100 choices').optional().meta({ description: "One level per criterion of the experiment's rubric (every criterion once); kept with the submission." }),
})
export type ExperimentGradeBody = z.infer<typeof ExperimentGradeBody>

export const Released = z
  .object({ released: z.number().int(), notified: z.number().int() })
  .meta({ id: 'ExperimentGradesReleased', description: 'Submissions whose held grade was released; students told (one notification each).' })

export const ExperimentDetail = Experiment.extend({
  mySubmission: Submission.nullable()
    .optional()
    .meta({ description: "Students only: the caller's newest submission, or null." }),
}).meta({ id: 'ExperimentDetail' })

export const SubmissionForm = z.object({
  file: uploadedFile('a file is required').optional().meta({ description: 'One file (the single-file form). Send `file`, or one or more `files`, or both.' }),
  files: z.array(uploadedFile('a file is required')).optional().meta({ description: `More files: repeat the \`files\` part (at most ${MAX_FILES} files in all, the whole body within MAX_UPLOAD_BYTES).` }),
  note: plainText({ min: 0, max: 2000, multiline: true }).optional().meta({ description: 'Plain text (no control characters but tabs and line breaks).' }),
})


export const MyExperimentsQuery = z.object({ courseId: Uuid.optional() })

export const MyExperiment = z
  .object({
    experimentId: Uuid,
    courseId: Uuid,
    courseTitle: z.string(),
    title: z.string(),
    dueAt: IsoDateTime,
    status: z.enum(['OPEN', 'SUBMITTED', 'OVERDUE']).meta({
      description: 'Student view: SUBMITTED once a file is in, else OPEN before dueAt and OVERDUE after. Teacher view: OPEN or OVERDUE by dueAt.',
    }),
    submittedAt: IsoDateTime.nullable().meta({ description: "The caller's newest submission (students; null for teachers)." }),
    late: z.boolean().nullable(),
    score: z.number().nullable(),
    remainingSeconds: z.number().int().meta({ description: 'Seconds until dueAt (0 once past).' }),
    submittedCount: z.number().int().optional().meta({ description: 'Teacher view: students of the course who submitted.' }),
    studentCount: z.number().int().optional().meta({ description: 'Teacher view: students of the course.' }),
  })
  .meta({ id: 'MyExperiment' })

export const MyExperimentList = z.object({ items: z.array(MyExperiment) })
