import { z } from 'zod'
import { IsoDateTime, Uuid } from '../../http/envelope.ts'
import { pageFields } from '../../http/pagination.ts'
import { plainText } from '../../http/text.ts'
import { GradeBody } from '../../lib/grading.ts'
import { Rubric as RubricSchema, RubricChoice as RubricChoiceSchema } from '../rubrics/model.ts'
import { MAX_FILES, SubmissionFile } from '../../storage/submission-files.ts'
import { uploadedFile } from '../../storage/upload.ts'

// ---------------------------------------------------------------------------------------------
// Limits. Plain-text fields (titles, descriptions, stems, options) are stored as given and
// rendered as text by clients; rich-text fields are sanitised on write (sanitizeRichText).
// ---------------------------------------------------------------------------------------------
export const LIMITS = {
  title: 200,
  description: 5_000,
  richText: 100_000,
  url: 2_000,
  stem: 5_000,
  option: 1_000,
  questions: 100,
  minOptions: 2,
  maxOptions: 20,
  maxPoints: 1_000,
  answerText: 20_000,
  reorder: 1_000,
} as const

const Title = plainText({ min: 1, max: LIMITS.title })
const Description = plainText({ min: 0, max: LIMITS.description, multiline: true })
const RichText = (max: number) => z.string().max(max, `must be at most ${max} characters`)
/** Any ISO-8601 date-time with an offset (or Z). */
const DateTimeInput = z.iso.datetime({ offset: true, message: 'must be an ISO-8601 date-time with an offset' })

export const TaskKind = z.enum(['LEARNING', 'HOMEWORK'])
export const TaskType = z.enum(['MEDIA', 'QUIZ', 'LTI'])
export const MaterialType = z.enum(['FILE', 'LINK', 'TEXT'])
export const QuestionType = z.enum(['SINGLE_CHOICE', 'MULTIPLE_CHOICE', 'SHORT_ANSWER'])
export type TaskKind = z.infer<typeof TaskKind>
export type TaskType = z.infer<typeof TaskType>
export type MaterialType = z.infer<typeof MaterialType>
export type QuestionType = z.infer<typeof QuestionType>
/** Who sees a task: students see PUBLISHED ones only (issue 29.9). */
export const PublishState = z.enum(['DRAFT', 'SCHEDULED', 'PUBLISHED', 'UNPUBLISHED'])
export type PublishState = z.infer<typeof PublishState>

/** When students see a task's grades (issue 54). */
export const GradeRelease = z.enum(['AUTOMATIC', 'MANUAL'])

/** The publishing fields of the create and patch bodies (not part of what an edit validates). */
const publishFields = {
  gradeRelease: GradeRelease.optional().meta({
    description:
      'AUTOMATIC (the default): a grade is the student\'s when it is saved. MANUAL: grades are kept from students (score and feedback null, status SUBMITTED, out of their totals, no notification) until the teacher releases them (POST …/tasks/{taskId}/release). Back to AUTOMATIC while grades wait for release → 409 GRADES_HELD (release them first).',
  }),
  state: PublishState.optional().meta({
    description:
      'DRAFT (students do not see it; no reminders, no notification), SCHEDULED (published by the service at publishAt), PUBLISHED (the default when left out: students see it, reminders start) or UNPUBLISHED (hidden again, submissions kept, pending reminders canceled; only for a task that was published). A new task cannot be UNPUBLISHED; a task that was published cannot become a DRAFT again.',
  }),
  publishAt: DateTimeInput.nullable().optional().meta({
    description: 'When a SCHEDULED task is published; required with state SCHEDULED and in the future. Sent alone, it schedules the task.',
  }),
}

// ---------------------------------------------------------------------------------------------
// Units and knowledge points
// ---------------------------------------------------------------------------------------------
export const CreateUnitBody = z.object({ title: Title, description: Description.default('') })
export type CreateUnitBody = z.infer<typeof CreateUnitBody>
export const PatchUnitBody = z
  .object({ title: Title.optional(), description: Description.optional() })
  .refine((b) => b.title !== undefined || b.description !== undefined, { message: 'send at least one of title, description' })
export type PatchUnitBody = z.infer<typeof PatchUnitBody>
export const CreatePointBody = CreateUnitBody
export const PatchPointBody = PatchUnitBody

export const Unit = z
  .object({ id: Uuid, courseId: Uuid, title: z.string(), description: z.string(), sortOrder: z.number().int() })
  .meta({ id: 'LearningUnit' })
export const Point = z
  .object({ id: Uuid, unitId: Uuid, title: z.string(), description: z.string(), sortOrder: z.number().int() })
  .meta({ id: 'KnowledgePoint' })

// ---------------------------------------------------------------------------------------------
// Tasks
// ---------------------------------------------------------------------------------------------
const isChoice = (t: QuestionType) => t !== 'SHORT_ANSWER'

export const QuestionInput = z
  .object({
    /** Kept when it names a question the task already has (edits keep answer references). */
    id: Uuid.optional(),
    type: QuestionType,
    stem: plainText({ min: 1, max: LIMITS.stem, multiline: true }),
    options: z
      .array(plainText({ min: 1, max: LIMITS.option }))
      .max(LIMITS.maxOptions, `at most ${LIMITS.maxOptions} options`)
      .optional(),
    correctOptions: z.array(z.int('must be whole numbers').min(0, 'must be 0 or more')).max(LIMITS.maxOptions).optional(),
    points: z.number().gt(0, 'must be greater than 0').max(LIMITS.maxPoints, `must be at most ${LIMITS.maxPoints}`).default(1),
  })
  .superRefine((q, ctx) => {
    const options = q.options ?? []
    const correct = q.correctOptions ?? []
    if (!isChoice(q.type)) {
      if (options.length) ctx.addIssue({ code: 'custom', path: ['options'], message: 'short-answer questions take no options' })
      if (correct.length) ctx.addIssue({ code: 'custom', path: ['correctOptions'], message: 'short-answer questions take no correct options' })
      return
    }
    if (options.length < LIMITS.minOptions) {
      ctx.addIssue({ code: 'custom', path: ['options'], message: `choice questions need ${LIMITS.minOptions} to ${LIMITS.maxOptions} options` })
    }
    if (correct.some((i) => i >= options.length)) {
      ctx.addIssue({ code: 'custom', path: ['correctOptions'], message: 'each index must point at one of the options (0-based)' })
    }
    if (new Set(correct).size !== correct.length) {
      ctx.addIssue({ code: 'custom', path: ['correctOptions'], message: 'must not repeat an index' })
    }
    if (q.type === 'SINGLE_CHOICE' && correct.length !== 1) {
      ctx.addIssue({ code: 'custom', path: ['correctOptions'], message: 'a single-choice question has exactly one correct option' })
    }
    if (q.type === 'MULTIPLE_CHOICE' && correct.length < 1) {
      ctx.addIssue({ code: 'custom', path: ['correctOptions'], message: 'a multiple-choice question needs at least one correct option' })
    }
  })
export type QuestionInput = z.infer<typeof QuestionInput>

/** Every task field with its type; the create and patch bodies are built from these. */
const taskFields = {
  title: Title,
  taskKind: TaskKind,
  taskType: TaskType,
  materialType: MaterialType.nullable(),
  content: RichText(LIMITS.richText),
  url: z.string().trim().max(LIMITS.url, `must be at most ${LIMITS.url} characters`).nullable(),
  resourceId: Uuid.nullable(),
  questions: z.array(QuestionInput).max(LIMITS.questions, `at most ${LIMITS.questions} questions`),
  startAt: DateTimeInput.nullable(),
  dueAt: DateTimeInput.nullable(),
  notifyOnStart: z.boolean(),
  notifyBeforeDue24h: z.boolean(),
  notifyOnDue: z.boolean(),
  lti: z
    .object({
      toolId: Uuid,
      targetLinkUri: z.string().trim().max(LIMITS.url, `must be at most ${LIMITS.url} characters`).nullable().optional(),
      custom: z
        .record(z.string().regex(/^[A-Za-z0-9_.-]{1,100}$/, 'custom parameter names are letters, digits, _ . -'), z.string().max(1_000, 'must be at most 1000 characters'))
        .refine((c) => Object.keys(c).length <= 50, { message: 'at most 50 custom parameters' })
        .nullable()
        .optional(),
    })
    .nullable()
    .meta({ description: 'LTI tasks: the registered tool (this course\'s or an operator-wide one), the target link (default: the tool\'s launch URL) and custom parameters sent in the launch.' }),
}

const HOMEWORK_ONLY = ['startAt', 'dueAt'] as const

/** `new URL`, not a regex: accepts what browsers accept, and only http(s). */
export function httpUrl(raw: string): string | null {
  try {
    const u = new URL(raw)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null
  } catch {
    return null
  }
}

type TaskDraft = Partial<{ [K in keyof typeof taskFields]: z.infer<(typeof taskFields)[K]> }>

/**
 * Cross-field rules of a task, run on a create body and on (stored task + patch):
 * which fields a task kind/type/material needs and which it must not carry.
 * The time-dependent rule (startAt defaults to now, dueAt after it) is checked by the service.
 */
function checkTask(t: TaskDraft, ctx: z.RefinementCtx) {
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message })
  const present = (v: unknown) => v !== undefined && v !== null
  if (t.taskType === 'MEDIA') {
    if (!present(t.materialType)) issue('materialType', 'is required for MEDIA tasks (FILE, LINK or TEXT)')
    if (t.questions?.length) issue('questions', 'only QUIZ tasks have questions')
    if (t.materialType === 'LINK') {
      if (!present(t.url)) issue('url', 'is required for LINK material')
      else if (!httpUrl(t.url!)) issue('url', 'must be an http or https URL')
    } else if (present(t.url)) issue('url', 'only LINK material has a url')
    if (t.materialType === 'FILE') {
      if (!present(t.resourceId)) issue('resourceId', 'is required for FILE material (a file resource of this course)')
    } else if (present(t.resourceId)) issue('resourceId', 'only FILE material has a resourceId')
    if (t.materialType === 'TEXT' && !t.content?.trim()) issue('content', 'is required for TEXT material')
  }
  if (t.taskType === 'QUIZ') {
    if (!t.questions?.length) issue('questions', 'a quiz needs at least one question')
    if (present(t.materialType)) issue('materialType', 'only MEDIA tasks have a material type')
    if (present(t.url)) issue('url', 'only LINK material has a url')
    if (present(t.resourceId)) issue('resourceId', 'only FILE material has a resourceId')
  }
  if (t.taskType === 'LTI') {
    if (!present(t.lti)) issue('lti', 'is required for LTI tasks ({ toolId })')
    if (t.questions?.length) issue('questions', 'only QUIZ tasks have questions')
    if (present(t.materialType)) issue('materialType', 'only MEDIA tasks have a material type')
    if (present(t.url)) issue('url', 'only LINK material has a url')
    if (present(t.resourceId)) issue('resourceId', 'only FILE material has a resourceId')
    if (t.lti?.targetLinkUri && !httpUrl(t.lti.targetLinkUri)) issue('lti', 'targetLinkUri must be an http or https URL')
  } else if (present(t.lti)) issue('lti', 'only LTI tasks have an lti link')
  if (t.taskKind === 'HOMEWORK') {
    if (!present(t.dueAt)) issue('dueAt', 'is required for HOMEWORK')
    else if (present(t.startAt) && Date.parse(t.dueAt!) <= Date.parse(t.startAt!)) issue('dueAt', 'must be after startAt')
  } else {
    for (const k of HOMEWORK_ONLY) if (present(t[k])) issue(k, 'only HOMEWORK tasks have a start and due time')
  }
}

export const CreateTaskBody = z
  .object({
    ...taskFields,
    taskKind: TaskKind.default('LEARNING'),
    materialType: taskFields.materialType.optional(),
    content: taskFields.content.default(''),
    url: taskFields.url.optional(),
    resourceId: taskFields.resourceId.optional(),
    questions: taskFields.questions.default([]),
    startAt: taskFields.startAt.optional(),
    dueAt: taskFields.dueAt.optional(),
    notifyOnStart: taskFields.notifyOnStart.default(true),
    notifyBeforeDue24h: taskFields.notifyBeforeDue24h.default(true),
    notifyOnDue: taskFields.notifyOnDue.default(true),
    lti: taskFields.lti.optional(),
    ...publishFields,
  })
  .superRefine(checkTask)
export type CreateTaskBody = z.infer<typeof CreateTaskBody>

export const PatchTaskBody = z
  .object({
    ...(Object.fromEntries(Object.entries(taskFields).map(([k, v]) => [k, v.optional()])) as {
      [K in keyof typeof taskFields]: z.ZodOptional<(typeof taskFields)[K]>
    }),
    ...publishFields,
    confirmQuestionRemoval: z.boolean().optional().meta({
      description:
        'Questions are matched by `id`; a stored question the edit leaves out is removed. When students answered it, the edit is refused with 409 HAS_SUBMISSIONS (`data.questions`: `[{ id, stem, answers }]`) unless this is true.',
    }),
  })
  .refine((b) => Object.entries(b).some(([k, v]) => k !== 'confirmQuestionRemoval' && v !== undefined), { message: 'send at least one field to change' })
export type PatchTaskBody = z.infer<typeof PatchTaskBody>

export const Question = z
  .object({
    id: Uuid,
    type: QuestionType,
    stem: z.string(),
    options: z.array(z.string()),
    correctOptions: z.array(z.number().int()).optional().meta({ description: 'Only for the course teacher; never sent to students.' }),
    points: z.number(),
    addedAt: IsoDateTime.optional()
      .meta({ description: 'Present when an edit added the question after the task was created: sheets handed in before this time were not asked it (their results say `addedAfterSubmission`).' }),
  })
  .meta({ id: 'QuizQuestion' })

export const Task = z
  .object({
    id: Uuid,
    pointId: Uuid,
    courseId: Uuid,
    title: z.string(),
    taskKind: TaskKind,
    taskType: TaskType,
    materialType: MaterialType.nullable(),
    content: z.string(),
    url: z.string().nullable(),
    resourceId: Uuid.nullable(),
    questions: z.array(Question),
    startAt: IsoDateTime.nullable(),
    dueAt: IsoDateTime.nullable(),
    notifyOnStart: z.boolean(),
    notifyBeforeDue24h: z.boolean(),
    notifyOnDue: z.boolean(),
    sortOrder: z.number().int(),
    createdAt: IsoDateTime,
    state: PublishState,
    publishAt: IsoDateTime.nullable().meta({ description: 'Set while SCHEDULED.' }),
    publishedAt: IsoDateTime.nullable().meta({ description: 'When the task was last published (null: never).' }),
    gradeRelease: GradeRelease,
    rubric: RubricSchema.nullable().meta({ description: 'The rubric graders pick levels of (PUT …/rubric); students see it before handing in. Null: none.' }),
    lti: z
      .object({ toolId: Uuid.nullable().meta({ description: 'null once the tool was removed' }), targetLinkUri: z.string().nullable(), custom: z.record(z.string(), z.string()) })
      .nullable()
      .meta({ description: 'LTI tasks: the tool opened at `…/lti/launch`.' }),
  })
  .meta({ id: 'LearningTask' })

export const Regrade = z
  .object({
    sheets: z.number().int().meta({ description: 'Sheets of the task looked at.' }),
    rescored: z.number().int().meta({ description: 'Sheets whose score changed with the new answer key or points.' }),
    needsReview: z.number().int().meta({ description: 'Sheets holding a per-question score above its new points; their score is kept until the teacher grades them again.' }),
  })
  .meta({ id: 'QuizRegrade' })

/** PATCH answers the task plus what the edit did to the sheets already handed in. */
export const EditedTask = Task.extend({
  regrade: Regrade.nullable().meta({
    description: 'Set when the edit changed an answer key, points or the set of questions of a quiz with submissions: every sheet was rescored at once (scores the teacher typed are kept).',
  }),
}).meta({ id: 'EditedLearningTask' })

export const PointWithTasks = Point.extend({ tasks: z.array(Task) }).meta({ id: 'KnowledgePointWithTasks' })
export const UnitWithPoints = Unit.extend({ points: z.array(PointWithTasks) }).meta({ id: 'LearningUnitWithPoints' })
export const LearningTree = z.object({ units: z.array(UnitWithPoints) }).meta({ id: 'LearningTree' })

export const ReorderBody = z.object({
  orderedTaskIds: z.array(Uuid).max(LIMITS.reorder, `at most ${LIMITS.reorder} ids`),
})
export type ReorderBody = z.infer<typeof ReorderBody>

export const Deleted = z.object({ id: Uuid })

// ---------------------------------------------------------------------------------------------
// Submissions (answer sheets), grading, overview
// ---------------------------------------------------------------------------------------------
export const AnswerInput = z.object({
  questionId: Uuid,
  selectedOptions: z
    .array(z.int('must be whole numbers').min(0, 'must be 0 or more'))
    .max(LIMITS.maxOptions, `at most ${LIMITS.maxOptions} options`)
    .optional(),
  text: z.string().max(LIMITS.answerText, `must be at most ${LIMITS.answerText} characters`).optional(),
})
export type AnswerInput = z.infer<typeof AnswerInput>

export const SubmitBody = z.object({
  content: RichText(LIMITS.richText).optional(),
  answers: z.array(AnswerInput).max(LIMITS.questions, `at most ${LIMITS.questions} answers`).optional(),
})
export type SubmitBody = z.infer<typeof SubmitBody>

/**
 * The multipart/form-data hand-in (issue 29.7): the answer of the JSON body plus one or more
 * files. Text fields are at most 64 KiB each in a form.
 */
export const SubmitForm = z.object({
  content: RichText(LIMITS.richText)
    .optional()
    .meta({ description: 'MEDIA tasks: the answer text (rich text, sanitised). Optional when files are sent.' }),
  answers: z
    .string()
    .optional()
    .meta({ description: 'QUIZ tasks (required there): the `answers` array of the JSON body, as JSON text.' }),
  files: z
    .array(uploadedFile('a file is required'))
    .optional()
    .meta({
      description: `One to ${MAX_FILES} files (photos from a phone, PDFs…): repeat the \`files\` part. The whole body stays within MAX_UPLOAD_BYTES.`,
    }),
})
export type SubmitForm = z.infer<typeof SubmitForm>


export const SubmissionQuery = z.object({
  page: z.coerce.number().int().min(1).max(1_000_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(200).default(50),
  studentId: Uuid.optional(),
})
export type SubmissionQuery = z.infer<typeof SubmissionQuery>

// No schema id: nested in both the body and the submission, an id would make a $ref the
// inline OpenAPI schemas cannot resolve.
export const QuestionScore = z.object({
  questionId: Uuid,
  score: z.number({ message: 'must be a number' }).min(0, 'must be 0 or more'),
})

/**
 * Grading a learning submission: the shared `{ score, feedback }` body plus per-question scores
 * for the short-answer questions of a quiz. `score` may be left out once every short-answer
 * question has a score; it is then computed from the points.
 */
export const LearningGradeBody = GradeBody.extend({
  score: GradeBody.shape.score.optional().meta({
    description:
      'The final score 0-100. Optional when every short-answer question of the sheet is scored (here or earlier): then (choice points earned + short-answer points awarded) ÷ total points × 100, two decimals. Given, it overrides that computation.',
  }),
  questionScores: z
    .array(QuestionScore)
    .max(LIMITS.questions, `at most ${LIMITS.questions} scores`)
    .optional()
    .meta({
      description:
        "Points awarded per SHORT_ANSWER question of the task, each 0 up to that question's points. Merged into the scores already given on this sheet (a question listed again is replaced).",
    }),
  rubric: z
    .array(RubricChoiceSchema)
    .max(100, 'at most 100 choices')
    .optional()
    .meta({
      description:
        "Grading by the task's rubric: one level per criterion (every criterion once). Homework: the score is the points of the chosen levels ÷ the rubric's most points × 100 (unless `score` is given). Quiz: each short-answer question's score is the sum of its criteria's chosen points (as `questionScores`). Kept with the sheet (`rubricChoices`).",
    }),
})
export type LearningGradeBody = z.infer<typeof LearningGradeBody>

export const Answer = z.object({ questionId: Uuid, selectedOptions: z.array(z.number().int()), text: z.string().nullable() })

export const Submission = z
  .object({
    id: Uuid,
    taskId: Uuid,
    courseId: Uuid,
    student: z.object({ id: Uuid, username: z.string(), displayName: z.string() }),
    content: z.string().nullable(),
    answers: z.array(Answer).nullable(),
    autoScore: z.number().nullable(),
    score: z.number().nullable(),
    questionScores: z
      .array(QuestionScore)
      .meta({ description: 'Points the teacher awarded per short-answer question so far (empty when none).' }),
    questionResults: z
      .array(z.object({ questionId: Uuid, points: z.number(), earned: z.number().nullable(), addedAfterSubmission: z.boolean() }))
      .meta({
        description:
          'Once a quiz sheet is GRADED: every question with its points and what it earned (a choice question all or nothing; a short answer the points the teacher gave, null when only an overall score was given). A question the teacher added after the sheet was handed in is `addedAfterSubmission: true` with `earned: null`: it was not asked, so it is neither wrong nor part of the score of that sheet. Empty before grading and for non-quiz tasks. The answer key is not included.',
      }),
    feedback: z.string().nullable(),
    rubricChoices: z.array(RubricChoiceSchema).meta({ description: 'The rubric level picked per criterion when graded by rubric (empty otherwise; for a student, only once released).' }),
    status: z.enum(['SUBMITTED', 'GRADED']),
    released: z.boolean().optional().meta({
      description: "The teacher's view only: false while this sheet's grade waits for the task's release (MANUAL); the student then sees the sheet SUBMITTED, without score or feedback.",
    }),
    late: z.boolean(),
    submittedAt: IsoDateTime,
    gradedAt: IsoDateTime.nullable(),
    files: z.array(SubmissionFile).meta({
      description: 'The files handed in with the sheet (multipart hand-in), in the order sent; empty for a JSON hand-in. Each downloads for the student and the course teacher only.',
    }),
  })
  .meta({ id: 'LearningSubmission' })

export const Overview = z
  .object({
    students: z.array(
      z.object({
        userId: Uuid,
        username: z.string(),
        displayName: z.string(),
        totalTasks: z.number().int(),
        submittedTasks: z.number().int(),
        gradedTasks: z.number().int(),
        averageScore: z.number().nullable(),
      }),
    ),
    ...pageFields,
  })
  .meta({ id: 'LearningOverview' })

export const Released = z
  .object({
    released: z.number().int().meta({ description: 'Sheets whose held grade was released.' }),
    notified: z.number().int().meta({ description: 'Students told (one notification each).' }),
  })
  .meta({ id: 'GradesReleased' })
