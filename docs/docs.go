// Package docs holds the guides for traders, so that engine docs can write
// them, with the generated reference and schemas, to a directory for
// reading offline. The Markdown files are the documentation; this file only
// embeds them.
package docs

import (
	"embed"
	"io/fs"
)

//go:embed *.md *.json
var files embed.FS

// Files returns the guides and schemas of this directory (Markdown and
// JSON files, no subdirectories).
func Files() fs.FS { return files }
