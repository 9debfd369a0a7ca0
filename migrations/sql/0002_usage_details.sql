-- What GBIF's download API shows beyond 0001: the source of a download
-- (the client's source parameter or User-Agent) and, per constituent
-- dataset, its DOI, publishing organization and publishing country when
-- the catalog records them ('' when it does not). The indexes serve the
-- download statistics, which group succeeded downloads by month and dataset.
ALTER TABLE downloads ADD COLUMN source TEXT NOT NULL DEFAULT '';
ALTER TABLE download_datasets ADD COLUMN dataset_doi TEXT NOT NULL DEFAULT '';
ALTER TABLE download_datasets ADD COLUMN publishing_org_key TEXT NOT NULL DEFAULT '';
ALTER TABLE download_datasets ADD COLUMN publishing_country TEXT NOT NULL DEFAULT '';
CREATE INDEX downloads_status_created ON downloads (status, created);
CREATE INDEX download_datasets_dataset ON download_datasets (dataset_key);
