import type { Catalogue } from '../../catalogue.ts'
import type en from '../en/transfer.ts'

/** 简体中文，命名空间 `transfer`：从 Moodle 或 Common Cartridge 导入课程、导出课程。 */
const zh: Catalogue<typeof en> = {
  import: {
    heading: '导入课程',
    intro: '从 Moodle 备份（.mbz）或由 Canvas、Moodle、Schoology、Brightspace、Blackboard 导出的 Common Cartridge 课程包（.imscc、.zip）导入课程。不会导入人员、提交和成绩。',
    file: '课程包',
    shiftDays: '所有日期顺延（天）',
    shiftDaysHint: '例如填 365，把去年的截止日期移到今年；填 0 则保持不变。',
    submit: '导入',
    uploading: '正在上传…',
    uploadProgress: '上传',
    errors: {
      file: '请选择 .mbz、.imscc 或 .zip 文件。',
      shiftDays: '请输入 -3650 到 3650 之间的整数天数。',
    },
    state: {
      QUEUED: '等待开始…',
      RUNNING: '正在导入… {{progress}}%',
      DONE: '导入完成。',
      FAILED: '导入失败。',
    },
    progress: '导入进度',
    openCourse: '打开导入的课程',
    created: '已创建：{{units}} 个学习单元、{{points}} 个知识点、{{tasks}} 个任务（{{quizzes}} 个测验共 {{questions}} 道题、{{homework}} 个作业）、{{files}} 个文件。',
    skippedHeading: '未导入的内容',
    skippedNone: '课程包中的内容已全部导入。',
    kind: '类型',
    title: '标题',
    reason: '原因',
  },
  export: {
    heading: '导出',
    intro: '将本课程下载为 Common Cartridge 1.1 课程包（.imscc），可导入 Canvas、Moodle、Schoology、Brightspace 和 Blackboard。不包含学生、学生作业和成绩。',
    download: '下载 Common Cartridge',
  },
}
export default zh
