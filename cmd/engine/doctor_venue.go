package main

import (
	"net/http"

	"github.com/tickrules/tickrules/doctor"
	"github.com/tickrules/tickrules/exchange"
)

// readOnlyDoctorVenue is the doctor's venue: a client that refuses every
// mutating operation at the transport, with the reads beyond Reader that
// the checks need (clock offset, path family, position mode, key info).
func readOnlyDoctorVenue(opts exchange.ClientOptions, hc *http.Client) (doctor.Venue, error) {
	if hc != nil {
		opts.HTTPClient = hc
	}
	ro, err := exchange.NewReadOnlyClient(opts)
	if err != nil {
		return nil, err
	}
	return ro.Reader.(*exchange.Client), nil // read-only at the transport
}
