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
// (ParamDef, ParamType: pure data).
//
// Parse reads a rule file's shape: its text, its single YAML document, the
// keys of the file (FileKeys) and of each rule (RuleKeys), with unknown
// keys reported with the key meant, and the values the format decides
// (names, durations, once, enabled, priority). What the language reads
// (the condition, the defaults, the actions and their parameters) it hands
// over as YAML nodes with their positions, and Decoder is how the rules
// package goes on reading those nodes with the same friendly findings while
// it compiles conditions and formulas.
package rulefmt
