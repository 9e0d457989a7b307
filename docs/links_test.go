package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// link matches an inline Markdown link or image: [text](target) with an
// optional "title".
var link = regexp.MustCompile(`!?\[[^\]]*\]\(([^()\s]+)(?:\s+"[^"]*")?\)`)

// TestDocLinksResolve checks every link of README.md and docs/*.md: a
// relative link must name a file or directory of the repository, and a
// #fragment must name a heading of the Markdown file it points to. Links
// with a scheme (https:, mailto:) are left alone: they leave the repository
// on purpose.
func TestDocLinksResolve(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	pages = append(pages, filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		rel, _ := filepath.Rel(root, page)
		t.Run(rel, func(t *testing.T) {
			for _, l := range links(t, page) {
				checked++
				if err := resolve(root, page, l.target); err != "" {
					t.Errorf("%s:%d: link %s: %s", rel, l.line, l.target, err)
				}
			}
		})
	}
	if checked == 0 {
		t.Fatal("no links found: the pattern is broken")
	}
}

type docLink struct {
	line   int
	target string
}

// links returns the links of a Markdown file outside code blocks and code
// spans.
func links(t *testing.T, path string) []docLink {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []docLink
	fenced := false
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range link.FindAllStringSubmatch(withoutCodeSpans(line), -1) {
			out = append(out, docLink{line: i + 1, target: m[1]})
		}
	}
	return out
}

var codeSpan = regexp.MustCompile("`[^`]*`")

func withoutCodeSpans(line string) string { return codeSpan.ReplaceAllString(line, "") }

// resolve returns what is wrong with target as a link from page, or "".
func resolve(root, page, target string) string {
	if strings.Contains(target, ":") && !strings.HasPrefix(target, "#") {
		return "" // https:, mailto: and the like
	}
	path, frag, _ := strings.Cut(target, "#")
	file := page
	if path != "" {
		if strings.HasPrefix(path, "/") {
			return "absolute path; use a path relative to the page"
		}
		file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
		if r, err := filepath.Rel(root, file); err != nil || strings.HasPrefix(r, "..") {
			return "points outside the repository"
		}
		if _, err := os.Stat(file); err != nil {
			return "no such file in the repository"
		}
	}
	if frag == "" || !strings.HasSuffix(file, ".md") {
		return ""
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return err.Error()
	}
	for _, h := range headings(string(b)) {
		if h == frag {
			return ""
		}
	}
	return "no heading #" + frag + " in " + filepath.Base(file)
}

// headings returns the anchors GitHub gives the headings of a Markdown
// text: lower case, punctuation dropped, spaces as hyphens, repeats
// numbered.
func headings(md string) []string {
	var out []string
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127:
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			seen[a] = n + 1
			a += "-" + strconv.Itoa(n)
		} else {
			seen[a] = 1
		}
		out = append(out, a)
	}
	return out
}

func TestHeadingAnchors(t *testing.T) {
	got := headings("# The safety file\n## Stopping new orders now\n```\n# not a heading\n```\n## P&L, per account\n## Notes\n## Notes\n")
	want := []string{"the-safety-file", "stopping-new-orders-now", "pl-per-account", "notes", "notes-1"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("headings %v, want %v", got, want)
	}
}

// TestOfflineDocsLinksStayInside: engine docs --out DIR writes the guides of
// this directory and nothing else, so a guide's link to a file outside it
// (../sim/demo.yaml) is broken in the offline copy (issue 25). Such a file
// is named as a path in the source instead.
func TestOfflineDocsLinksStayInside(t *testing.T) {
	pages, _ := filepath.Glob("*.md")
	for _, page := range pages {
		for _, l := range links(t, page) {
			if strings.Contains(l.target, ":") || strings.HasPrefix(l.target, "#") {
				continue
			}
			if strings.HasPrefix(filepath.Clean(strings.SplitN(l.target, "#", 2)[0]), "..") {
				t.Errorf("%s:%d: link %s leaves docs/: the offline copy of engine docs --out has no such file", page, l.line, l.target)
			}
		}
	}
}
