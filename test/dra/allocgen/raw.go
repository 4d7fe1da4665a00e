package main

import "k8s.io/apimachinery/pkg/runtime"

func runtimeRaw(s string) runtime.RawExtension { return runtime.RawExtension{Raw: []byte(s)} }
