#include "test/cel/device_json.h"

#include "api/json/parse.h"

namespace berth::cel::testing {

Result<Case> ParseCase(std::string_view line) {
  BERTH_ASSIGN_OR_RETURN(api::Value doc, api::json::ParseJson(line));
  Case c;
  const api::Value* expr = doc.Find("expr");
  if (expr == nullptr || !expr->IsString()) return Error{"case without \"expr\""};
  c.expr = expr->AsString();
  const api::Value* dev = doc.Find("device");
  if (dev == nullptr) return c;
  if (const api::Value* d = dev->Find("driver")) c.device.driver = d->AsString();
  if (const api::Value* m = dev->Find("allowMultipleAllocations")) {
    c.device.allow_multiple_allocations = m->AsBool();
  }
  if (const api::Value* attrs = dev->Find("attributes")) {
    for (const auto& [name, a] : attrs->AsObject()) {
      if (const api::Value* v = a.Find("int")) {
        c.device.attributes[name] = v->AsInt();
      } else if (const api::Value* v = a.Find("bool")) {
        c.device.attributes[name] = v->AsBool();
      } else if (const api::Value* v = a.Find("string")) {
        c.device.attributes[name] = v->AsString();
      } else if (const api::Value* v = a.Find("version")) {
        c.device.attributes[name] = VersionText{v->AsString()};
      } else {
        return Error{"attribute " + name + " has no supported value"};
      }
    }
  }
  if (const api::Value* caps = dev->Find("capacity")) {
    for (const auto& [name, q] : caps->AsObject()) {
      const api::Value* v = q.Find("value");
      if (v == nullptr) return Error{"capacity " + name + " has no value"};
      BERTH_ASSIGN_OR_RETURN(c.device.capacity[name], api::Quantity::Parse(v->AsString()));
    }
  }
  return c;
}

Result<Outcome> ParseOutcome(std::string_view line) {
  BERTH_ASSIGN_OR_RETURN(api::Value doc, api::json::ParseJson(line));
  Outcome o;
  if (const api::Value* v = doc.Find("ok")) o.ok = v->AsBool();
  if (const api::Value* v = doc.Find("value")) o.value = v->AsBool();
  if (const api::Value* v = doc.Find("class")) o.error_class = v->AsString();
  if (const api::Value* v = doc.Find("error")) o.error = v->AsString();
  if (const api::Value* v = doc.Find("cost")) o.cost = static_cast<uint64_t>(v->AsInt());
  return o;
}

std::string OutcomeToJson(const Outcome& o) {
  api::Value v = api::Value::MakeObject();
  v.Set("ok", api::Value::Bool(o.ok));
  v.Set("value", api::Value::Bool(o.value));
  if (!o.error_class.empty()) v.Set("class", api::Value::String(o.error_class));
  if (!o.error.empty()) v.Set("error", api::Value::String(o.error));
  v.Set("cost", api::Value::Int(static_cast<int64_t>(o.cost)));
  return api::json::ToJson(v);
}

Outcome RunBerth(const Case& c) {
  Outcome o;
  auto program = Compile(c.expr);
  if (!program.ok()) {
    o.error_class = "compile";
    o.error = program.error();
    return o;
  }
  EvalStats stats;
  auto r = program->Evaluate(c.device, &stats);
  o.cost = stats.cost;
  if (!r.ok()) {
    o.error_class = stats.cost_limit_exceeded ? "cost" : "runtime";
    o.error = r.error();
    return o;
  }
  o.ok = true;
  o.value = *r;
  return o;
}

Device SampleGpu() {
  Device d;
  d.driver = "gpu.example.com";
  d.attributes["model"] = std::string("a100");
  d.attributes["cores"] = int64_t{108};
  d.attributes["mig"] = true;
  d.attributes["driverVersion"] = VersionText{"1.2.3"};
  d.attributes["other.example.com/rack"] = int64_t{7};
  d.capacity["memory"] = *api::Quantity::Parse("40Gi");
  return d;
}

}  // namespace berth::cel::testing
