# config and JSON helpers: filled in by their module.
