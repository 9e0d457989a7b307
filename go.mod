module github.com/tickrules/tickrules

go 1.26

require (
	github.com/expr-lang/expr v1.17.8 // indirect
	github.com/prometheus/client_golang v1.23.2 // indirect
	github.com/shopspring/decimal v1.6.0 // indirect
	go.uber.org/multierr v1.10.0 // indirect
	go.uber.org/zap v1.28.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
