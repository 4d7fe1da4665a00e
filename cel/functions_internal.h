#pragma once
// Shared by the function table's source files only.

#include <map>
#include <string>
#include <vector>

#include "cel/functions.h"

namespace berth::cel::internal {

using Registry = std::map<std::string, std::vector<Overload>, std::less<>>;

void RegisterStandard(Registry& r);    // functions_std.cc
void RegisterExtensions(Registry& r);  // functions_ext.cc: strings, regex, lists, optional
void RegisterKubernetes(Registry& r);  // functions_k8s.cc: semver, quantity
void RegisterLists(Registry& r);       // functions_lists.cc: lists and sets extensions

inline Type T(Type::Kind k) { return Type::Of(k); }
inline Type Dyn() { return Type::Dyn(); }
inline Type A() { return Type::Param('A'); }
inline Type B() { return Type::Param('B'); }

inline Error NoOverload() { return Error{"no such overload"}; }

}  // namespace berth::cel::internal
