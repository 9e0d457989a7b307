// Package rulefmt is the rule-file format of tickrules, kept apart from the
// condition language as Prometheus keeps model/rulefmt apart from rules/: it
// knows YAML text, positions and findings, and nothing of expr or the State.
//
// It holds the findings a trader reads (Error, Errors: file:line:col, the
// source line, a caret and a hint), the file as read (Source: the author's
// lines and the lines after ${ENV} substitution, with ExpandEnv mapping every
// column back to what the author wrote), the checks of the raw text (not
// UTF-8, tabs in indentation, YAML syntax errors explained) and Suggest for
// "did you mean ...?", and the declaration types of action parameters
// (ParamDef, ParamType: pure data). The rules package decodes rule files
// with these and compiles their conditions and formulas.
package rulefmt
