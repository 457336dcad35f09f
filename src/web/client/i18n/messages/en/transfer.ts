/** English, namespace `transfer`: importing a course from Moodle or a Common Cartridge, exporting one. */
export default {
  import: {
    heading: 'Import a course',
    intro: 'Bring a course in from a Moodle backup (.mbz) or a Common Cartridge (.imscc, .zip) exported by Canvas, Moodle, Schoology, Brightspace or Blackboard. People, submissions and grades are not imported.',
    file: 'Course package',
    shiftDays: 'Move every date by (days)',
    shiftDaysHint: 'For example 365 to move last year’s due dates into this year; 0 keeps them.',
    submit: 'Import',
    uploading: 'Uploading…',
    uploadProgress: 'Upload',
    errors: {
      file: 'Choose a .mbz, .imscc or .zip file.',
      shiftDays: 'Enter a whole number of days between -3650 and 3650.',
    },
    state: {
      QUEUED: 'Waiting to start…',
      RUNNING: 'Importing… {{progress}}%',
      DONE: 'Imported.',
      FAILED: 'The import failed.',
    },
    progress: 'Import progress',
    openCourse: 'Open the imported course',
    created: 'Created: {{units}} units, {{points}} knowledge points, {{tasks}} tasks ({{quizzes}} quizzes with {{questions}} questions, {{homework}} homework), {{files}} files.',
    skippedHeading: 'Not imported',
    skippedNone: 'Everything in the package was imported.',
    kind: 'Kind',
    title: 'Title',
    reason: 'Why',
  },
  export: {
    heading: 'Export',
    intro: 'Download this course as a Common Cartridge 1.1 package (.imscc), which Canvas, Moodle, Schoology, Brightspace and Blackboard import. Students, their work and grades are not included.',
    download: 'Download Common Cartridge',
  },
}
