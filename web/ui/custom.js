// The operator's own script: put a custom.js in the overrides directory's
// web/ folder (docs/page.md); this embedded one does nothing. It runs as a
// module after the page's own and may only load files from this service.
