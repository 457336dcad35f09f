-- The orphan sweep asks which stored keys rows still reference, a batch at a time.
create index if not exists experiment_submissions_storage_key_idx on experiment_submissions (storage_key);
create index if not exists course_resources_storage_key_idx on course_resources (storage_key) where storage_key is not null;
