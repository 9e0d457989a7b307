package rules

// The names below let the external tests (package rules_test: the tests
// that load rule files, which need the action kinds of package actions,
// and actions imports rules) use what is unexported here.

var (
	FixtureCatalog       = testCatalog
	FixtureAccount       = testAccount
	FixtureState         = testState
	InternalFormatNumber = formatNumber
	RoundFigure          = roundFigure
)

// TraderPrefix is traderPrefix.
const TraderPrefix = traderPrefix

// CompilerFunctions returns the names of the helper functions c accepts and
// the expression language's built-ins it leaves enabled.
func CompilerFunctions(c *Compiler) (helpers []string, builtins map[string]bool) {
	for name := range c.byName {
		helpers = append(helpers, name)
	}
	return helpers, c.builtins
}
