package rulefmt

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// utf8BOM is the byte order mark some Windows editors put at the start of
// a UTF-8 file; it is invisible, so it is dropped before parsing.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// TrimBOM returns data without a leading UTF-8 byte order mark.
func TrimBOM(data []byte) []byte { return bytes.TrimPrefix(data, utf8BOM) }

// maxEncodingErrors bounds the lines reported as not UTF-8 in one file.
const maxEncodingErrors = 10

// saveAsUTF8 is the hint of every encoding finding.
const saveAsUTF8 = "save the file as UTF-8 (in most editors: Save As, then choose the encoding UTF-8)"

// EncodingErrors reports a file that is not UTF-8 text: UTF-16 (Windows
// Notepad's "Unicode"), or bytes of another encoding (Latin-1 é, Windows
// quotes) at the line and column where they are.
func EncodingErrors(path string, data []byte) Errors {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) ||
		(len(data) >= 2 && (data[0] == 0 || data[1] == 0)) {
		return Errors{{File: path, Line: 1, Column: 1, Severity: SeverityError,
			Message: "the file is saved as UTF-16 (\"Unicode\"), not as UTF-8 text", Hint: saveAsUTF8,
			Source: "(UTF-16 text)"}}
	}
	if utf8.Valid(data) {
		return nil
	}
	var errs Errors
	for i, line := range strings.Split(string(data), "\n") {
		if utf8.ValidString(line) {
			continue
		}
		col := 1
		rest := line
		for len(rest) > 0 {
			r, size := utf8.DecodeRuneInString(rest)
			if r == utf8.RuneError && size <= 1 {
				break
			}
			rest = rest[size:]
			col++
		}
		errs = append(errs, &Error{File: path, Line: i + 1, Column: col, Severity: SeverityError,
			Message: fmt.Sprintf("the byte 0x%02X here is not UTF-8 text: the file was saved in another encoding (such as Latin-1 or Windows-1252)", rest[0]),
			Hint:    saveAsUTF8, Source: strings.TrimRight(strings.ToValidUTF8(line, "\uFFFD"), "\r")})
		if len(errs) == maxEncodingErrors {
			break
		}
	}
	return errs
}

// OnlyComments reports whether every line of the file is blank or a comment.
func OnlyComments(lines []string) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}
