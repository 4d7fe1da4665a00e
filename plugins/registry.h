#pragma once
// The one place that names every plugin berth ships (upstream's in-tree registry).

#include "scheduler/framework/registry.h"

namespace berth::plugins {

// A registry with every plugin, under upstream's names.
framework::Registry NewInTreeRegistry();

}  // namespace berth::plugins
