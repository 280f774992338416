// Copyright (c) 2023 The Jaeger Authors.
// SPDX-License-Identifier: Apache-2.0

// Loomgate's CI build of Jaeger v1.76.0 (.ci/install-jaeger): this file replaces the distribution's
// cmd/jaeger/internal/components.go, the list of OpenTelemetry Collector components compiled into the binary, with
// the ones TracingJaegerIT's configuration names (an OTLP receiver, the batch processor, Jaeger's storage exporter,
// storage extension and query extension), as the Collector's own builder (ocb) makes a custom distribution. The
// components left out (Kafka, Prometheus, tail sampling, OTTL filters, Zipkin, AWS auth, ...) are about 480 of the
// 2,325 Go packages of the full binary; everything kept is Jaeger's and the Collector's code, unchanged.

package internal

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/connector"
	"go.opentelemetry.io/collector/exporter"
	"go.opentelemetry.io/collector/extension"
	"go.opentelemetry.io/collector/otelcol"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/batchprocessor"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/service/telemetry/otelconftelemetry"

	"github.com/jaegertracing/jaeger/cmd/jaeger/internal/exporters/storageexporter"
	"github.com/jaegertracing/jaeger/cmd/jaeger/internal/extension/jaegerquery"
	"github.com/jaegertracing/jaeger/cmd/jaeger/internal/extension/jaegerstorage"
)

type builders struct {
	extension func(factories ...extension.Factory) (map[component.Type]extension.Factory, error)
	receiver  func(factories ...receiver.Factory) (map[component.Type]receiver.Factory, error)
	exporter  func(factories ...exporter.Factory) (map[component.Type]exporter.Factory, error)
	processor func(factories ...processor.Factory) (map[component.Type]processor.Factory, error)
	connector func(factories ...connector.Factory) (map[component.Type]connector.Factory, error)
}

func defaultBuilders() builders {
	return builders{
		extension: otelcol.MakeFactoryMap[extension.Factory],
		receiver:  otelcol.MakeFactoryMap[receiver.Factory],
		exporter:  otelcol.MakeFactoryMap[exporter.Factory],
		processor: otelcol.MakeFactoryMap[processor.Factory],
		connector: otelcol.MakeFactoryMap[connector.Factory],
	}
}

func (b builders) build() (otelcol.Factories, error) {
	var err error
	factories := otelcol.Factories{Telemetry: otelconftelemetry.NewFactory()}
	if factories.Extensions, err = b.extension(jaegerquery.NewFactory(), jaegerstorage.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Receivers, err = b.receiver(otlpreceiver.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Exporters, err = b.exporter(storageexporter.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Processors, err = b.processor(batchprocessor.NewFactory()); err != nil {
		return otelcol.Factories{}, err
	}
	if factories.Connectors, err = b.connector(); err != nil {
		return otelcol.Factories{}, err
	}
	return factories, nil
}

func Components() (otelcol.Factories, error) {
	return defaultBuilders().build()
}
