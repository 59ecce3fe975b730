package config

import (
	"errors"
	"testing"
)

func TestTelemetrySection(t *testing.T) {
	cfg, err := Load(writeRedisServer(t, ""))
	if err != nil || cfg.Server.Telemetry.OTLPEndpoint != "" {
		t.Fatalf("default: %+v, %v", cfg.Server.Telemetry, err)
	}
	cfg, err = Load(writeRedisServer(t, "telemetry: {otlp_endpoint: \"http://127.0.0.1:4318\"}\n"))
	if err != nil || cfg.Server.Telemetry.OTLPEndpoint != "http://127.0.0.1:4318" {
		t.Fatalf("file: %+v, %v", cfg.Server.Telemetry, err)
	}
	for _, bad := range []string{"127.0.0.1:4318", "grpc://collector:4317", "http://"} {
		_, err := Load(writeRedisServer(t, "telemetry: {otlp_endpoint: \""+bad+"\"}\n"))
		var problems Errors
		if !errors.As(err, &problems) || len(problems) != 1 || problems[0].Field != "telemetry.otlp_endpoint" {
			t.Errorf("endpoint %q: %v, want one problem with telemetry.otlp_endpoint", bad, err)
		}
	}
	t.Setenv("PROCTOR_TELEMETRY_OTLP_ENDPOINT", "https://collector.example:4318")
	if cfg, err = Load(writeRedisServer(t, "")); err != nil || cfg.Server.Telemetry.OTLPEndpoint != "https://collector.example:4318" {
		t.Fatalf("environment: %+v, %v", cfg.Server.Telemetry, err)
	}
}
