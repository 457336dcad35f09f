-- Per-question grading: the points a teacher awarded to each short-answer question of a quiz
-- sheet, [{ questionId, score }] (score 0..that question's points). NULL until the teacher
-- scores a question; the sheet's `score` stays the 0-100 grade the student sees.
alter table learning_submissions add column if not exists question_scores jsonb;
