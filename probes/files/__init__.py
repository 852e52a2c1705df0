"""The files users hand in, read one way: `inputfile` (the reader of targets, plans, lists and JSON: regular
files only, bounded, every refusal naming the file and line), `textinput` (the bytes and text checks both
`probes` and `catalogs` read through) and `filemodel` (the strict pydantic base of every file's model)."""
