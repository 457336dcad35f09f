import { gzipSync } from 'node:zlib'
import { createHash } from 'node:crypto'
import tar from 'tar-stream'
import { zipSync, strToU8 } from 'fflate'

/** Packs files (path → bytes) as a gzip'd tar, the way Moodle 2.6+ writes .mbz files. */
export async function tgz(files: Record<string, string | Uint8Array>): Promise<Uint8Array> {
  const pack = tar.pack()
  const chunks: Buffer[] = []
  pack.on('data', (c: unknown) => void chunks.push(c as Buffer))
  const done = new Promise<void>((r) => pack.on('end', () => r()))
  for (const [name, body] of Object.entries(files)) {
    const buf = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body)
    await new Promise<void>((resolve, reject) => pack.entry({ name, size: buf.length }, buf, (e) => (e ? reject(e) : resolve())))
  }
  pack.finalize()
  await done
  return new Uint8Array(gzipSync(Buffer.concat(chunks)))
}

export const zip = (files: Record<string, string | Uint8Array>) =>
  zipSync(Object.fromEntries(Object.entries(files).map(([k, v]) => [k, typeof v === 'string' ? strToU8(v) : v])))

const xmlEsc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
export const sha1 = (b: Uint8Array) => createHash('sha1').update(b).digest('hex')

/**
 * A small Moodle 4.x course backup in the layout Moodle writes (moodle_backup.xml, course/,
 * sections/, activities/<mod>_<id>/, questions.xml with question bank entries, files.xml and
 * files/<2 hex>/<sha1>): one page with an embedded image, a url, an assignment with dates, a quiz
 * (multichoice single and multi, true/false, shortanswer, a numerical one that has no
 * equivalent), a hidden page, a forum and a glossary; section 2 has no name.
 */
export async function moodleBackup(opts: { image: Uint8Array; due: number; open: number }) {
  const hash = sha1(opts.image)
  const act = (id: number, mod: string, section: number, title: string) => ({ id, mod, section, title })
  const acts = [
    act(11, 'page', 101, 'Welcome page'),
    act(12, 'url', 101, 'Moodle docs'),
    act(13, 'assign', 102, 'Essay one'),
    act(14, 'quiz', 102, 'Quiz one'),
    act(15, 'page', 102, 'Hidden notes'),
    act(16, 'forum', 101, 'Class forum'),
    act(17, 'glossary', 102, 'Terms'),
  ]
  const files: Record<string, string | Uint8Array> = {}
  files['moodle_backup.xml'] = `<?xml version="1.0" encoding="UTF-8"?>
<moodle_backup>
  <information>
    <name>backup-moodle2-course-7-test.mbz</name>
    <moodle_version>2023100900</moodle_version>
    <moodle_release>4.3 (Build: 20231009)</moodle_release>
    <backup_version>2023100900</backup_version>
    <original_course_fullname>Biology &amp; You</original_course_fullname>
    <details><detail backup_id="x"><type>course</type><format>moodle2</format></detail></details>
    <contents>
      <activities>
${acts.map((a) => `        <activity><moduleid>${a.id}</moduleid><sectionid>${a.section}</sectionid><modulename>${a.mod}</modulename><title>${xmlEsc(a.title)}</title><directory>activities/${a.mod}_${a.id}</directory></activity>`).join('\n')}
      </activities>
      <sections>
        <section><sectionid>100</sectionid><title>0</title><directory>sections/section_100</directory></section>
        <section><sectionid>101</sectionid><title>Cells</title><directory>sections/section_101</directory></section>
        <section><sectionid>102</sectionid><title>2</title><directory>sections/section_102</directory></section>
      </sections>
      <course><courseid>7</courseid><title>BIO</title><directory>course</directory></course>
    </contents>
  </information>
</moodle_backup>`
  files['course/course.xml'] = `<?xml version="1.0" encoding="UTF-8"?>
<course id="7" contextid="70"><shortname>BIO</shortname><fullname>Biology &amp; You</fullname><summary>&lt;p&gt;Life, cells and more.&lt;/p&gt;</summary></course>`
  files['sections/section_100/section.xml'] = `<?xml version="1.0" encoding="UTF-8"?><section id="100"><number>0</number><name>$@NULL@$</name><summary></summary><sequence></sequence><visible>1</visible></section>`
  files['sections/section_101/section.xml'] = `<?xml version="1.0" encoding="UTF-8"?><section id="101"><number>1</number><name>Cells</name><summary>&lt;p&gt;All about cells&lt;/p&gt;</summary><sequence>12,11,16</sequence><visible>1</visible></section>`
  files['sections/section_102/section.xml'] = `<?xml version="1.0" encoding="UTF-8"?><section id="102"><number>2</number><name>$@NULL@$</name><summary></summary><sequence>13,14,15,17</sequence><visible>1</visible></section>`
  for (const a of acts) {
    files[`activities/${a.mod}_${a.id}/module.xml`] = `<?xml version="1.0" encoding="UTF-8"?><module id="${a.id}" version="2023100900"><modulename>${a.mod}</modulename><sectionid>${a.section}</sectionid><visible>${a.id === 15 ? 0 : 1}</visible></module>`
  }
  const activity = (a: (typeof acts)[number], inner: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><activity id="${a.id}" moduleid="${a.id}" modulename="${a.mod}" contextid="${500 + a.id}"><${a.mod} id="${a.id}"><name>${xmlEsc(a.title)}</name>${inner}</${a.mod}></activity>`
  files['activities/page_11/page.xml'] = activity(acts[0]!, `<intro></intro><content>${xmlEsc('<p>Hello <b>cells</b>.</p><p><img src="@@PLUGINFILE@@/cell%20diagram.png" alt="A cell"></p><p><a href="@@PLUGINFILE@@/cell%20diagram.png">Download</a></p><script>alert(1)</script>')}</content>`)
  files['activities/url_12/url.xml'] = activity(acts[1]!, `<intro></intro><externalurl>https://docs.moodle.org/</externalurl>`)
  files['activities/assign_13/assign.xml'] = activity(acts[2]!, `<intro>${xmlEsc('<p>Write 500 words.</p>')}</intro><allowsubmissionsfromdate>${opts.open}</allowsubmissionsfromdate><duedate>${opts.due}</duedate><cutoffdate>0</cutoffdate>`)
  files['activities/quiz_14/quiz.xml'] = activity(
    acts[3]!,
    `<intro></intro><timeopen>0</timeopen><timeclose>0</timeclose><question_instances>
${[1, 2, 3, 4, 5].map((e, i) => `<question_instance id="${90 + i}"><slot>${i + 1}</slot><page>1</page><maxmark>${e === 2 ? '2.0000000' : '1.0000000'}</maxmark><question_reference id="${80 + i}"><usingcontextid>514</usingcontextid><component>mod_quiz</component><questionarea>slot</questionarea><questionbankentryid>${e}</questionbankentryid><version>$@NULL@$</version></question_reference></question_instance>`).join('\n')}
</question_instances>`,
  )
  files['activities/page_15/page.xml'] = activity(acts[4]!, `<intro></intro><content>&lt;p&gt;Teacher only&lt;/p&gt;</content>`)
  files['activities/forum_16/forum.xml'] = activity(acts[5]!, `<intro></intro><type>general</type>`)
  files['activities/glossary_17/glossary.xml'] = activity(acts[6]!, `<intro></intro>`)
  const answer = (id: number, text: string, fraction: string) => `<answer id="${id}"><answertext>${xmlEsc(text)}</answertext><answerformat>1</answerformat><fraction>${fraction}</fraction></answer>`
  const question = (entry: number, id: number, qtype: string, name: string, text: string, mark: string, plugin: string) =>
    `<question_bank_entry id="${entry}"><questioncategoryid>3</questioncategoryid><idnumber>$@NULL@$</idnumber><question_version><question_versions id="${entry}"><version>1</version><status>ready</status><questions>
<question id="${id}"><parent>0</parent><name>${xmlEsc(name)}</name><questiontext>${xmlEsc(text)}</questiontext><questiontextformat>1</questiontextformat><defaultmark>${mark}</defaultmark><qtype>${qtype}</qtype>${plugin}</question>
</questions></question_versions></question_version></question_bank_entry>`
  files['questions.xml'] = `<?xml version="1.0" encoding="UTF-8"?>
<question_categories>
  <question_category id="3"><name>Default for Quiz one</name><contextid>514</contextid><contextlevel>70</contextlevel><question_bank_entries>
${question(1, 201, 'multichoice', 'Organelle', '<p>Which organelle makes energy?</p>', '1.0000000', `<plugin_qtype_multichoice_question><answers>${answer(1, '<p>Nucleus</p>', '0.0000000')}${answer(2, '<p>Mitochondrion</p>', '1.0000000')}${answer(3, '<p>Ribosome</p>', '0.0000000')}</answers><multichoice id="1"><single>1</single></multichoice></plugin_qtype_multichoice_question>`)}
${question(2, 202, 'multichoice', 'Membranes', '<p>Which have a membrane?</p>', '1.0000000', `<plugin_qtype_multichoice_question><answers>${answer(4, 'Nucleus', '0.5000000')}${answer(5, 'Ribosome', '-0.5000000')}${answer(6, 'Mitochondrion', '0.5000000')}</answers><multichoice id="2"><single>0</single></multichoice></plugin_qtype_multichoice_question>`)}
${question(3, 203, 'truefalse', 'Cells alive', '<p>Cells are alive.</p>', '1.0000000', `<plugin_qtype_truefalse_question><answers>${answer(7, 'True', '1.0000000')}${answer(8, 'False', '0.0000000')}</answers></plugin_qtype_truefalse_question>`)}
${question(4, 204, 'shortanswer', 'Name it', '<p>Name the cell wall material.</p>', '1.0000000', `<plugin_qtype_shortanswer_question><answers>${answer(9, 'cellulose', '1.0000000')}</answers></plugin_qtype_shortanswer_question>`)}
${question(5, 205, 'numerical', 'How many', '<p>How many chromosomes?</p>', '1.0000000', `<plugin_qtype_numerical_question><answers>${answer(10, '46', '1.0000000')}</answers></plugin_qtype_numerical_question>`)}
  </question_bank_entries></question_category>
</question_categories>`
  files['files.xml'] = `<?xml version="1.0" encoding="UTF-8"?>
<files>
  <file id="1"><contenthash>${hash}</contenthash><contextid>511</contextid><component>mod_page</component><filearea>content</filearea><itemid>0</itemid><filepath>/</filepath><filename>cell diagram.png</filename><filesize>${opts.image.length}</filesize><mimetype>image/png</mimetype></file>
  <file id="2"><contenthash>da39a3ee5e6b4b0d3255bfef95601890afd80709</contenthash><contextid>511</contextid><component>mod_page</component><filearea>content</filearea><itemid>0</itemid><filepath>/</filepath><filename>.</filename><filesize>0</filesize><mimetype>$@NULL@$</mimetype></file>
</files>`
  files[`files/${hash.slice(0, 2)}/${hash}`] = opts.image
  return files
}
