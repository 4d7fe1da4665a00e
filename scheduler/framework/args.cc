#include "scheduler/framework/args.h"

namespace berth::framework {

ArgsReader::ArgsReader(const api::Value* args, std::string path)
    : args_(args), path_(std::move(path)) {
  if (args_ != nullptr && !args_->IsNull() && !args_->IsObject()) {
    Fail(path_ + ": expected object, got " + std::string(args_->TypeName()));
    args_ = nullptr;
  }
}

std::string ArgsReader::Path(std::string_view field) const {
  return path_.empty() ? std::string(field) : path_ + "." + std::string(field);
}

void ArgsReader::Fail(std::string message) {
  if (!error_) error_ = std::move(message);
}

void ArgsReader::Ignore(std::string_view field) { seen_.emplace(field); }

const api::Value* ArgsReader::Field(std::string_view field) {
  seen_.emplace(field);
  if (args_ == nullptr) return nullptr;
  const api::Value* v = args_->Find(field);
  if (v == nullptr || v->IsNull()) return nullptr;
  return v;
}

std::optional<std::vector<std::string>> ArgsReader::StringList(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return std::nullopt;
  if (!v->IsArray()) {
    Fail(Path(field) + ": expected array of strings, got " + std::string(v->TypeName()));
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < v->AsArray().size(); ++i) {
    const auto& e = v->AsArray()[i];
    if (!e.IsString()) {
      Fail(Path(field) + "[" + std::to_string(i) + "]: expected string, got " +
           std::string(e.TypeName()));
      return std::nullopt;
    }
    out.push_back(e.AsString());
  }
  return out;
}

std::optional<std::string> ArgsReader::String(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return std::nullopt;
  if (!v->IsString()) {
    Fail(Path(field) + ": expected string, got " + std::string(v->TypeName()));
    return std::nullopt;
  }
  return v->AsString();
}

std::optional<int64_t> ArgsReader::Int(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return std::nullopt;
  if (!v->IsInt()) {
    Fail(Path(field) + ": expected integer, got " + std::string(v->TypeName()));
    return std::nullopt;
  }
  return v->AsInt();
}

std::optional<double> ArgsReader::Number(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return std::nullopt;
  if (!v->IsNumber()) {
    Fail(Path(field) + ": expected number, got " + std::string(v->TypeName()));
    return std::nullopt;
  }
  return v->AsDouble();
}

std::optional<bool> ArgsReader::Bool(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return std::nullopt;
  if (!v->IsBool()) {
    Fail(Path(field) + ": expected boolean, got " + std::string(v->TypeName()));
    return std::nullopt;
  }
  return v->AsBool();
}

const api::Value* ArgsReader::Object(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return nullptr;
  if (!v->IsObject()) {
    Fail(Path(field) + ": expected object, got " + std::string(v->TypeName()));
    return nullptr;
  }
  return v;
}

const api::Value* ArgsReader::Array(std::string_view field) {
  const api::Value* v = Field(field);
  if (v == nullptr) return nullptr;
  if (!v->IsArray()) {
    Fail(Path(field) + ": expected array, got " + std::string(v->TypeName()));
    return nullptr;
  }
  return v;
}

Ok ArgsReader::Finish() {
  if (error_) return Error{*error_};
  if (args_ != nullptr) {
    for (const auto& [k, v] : args_->AsObject()) {
      // apiVersion/kind may accompany typed args, as upstream accepts.
      if (k == "apiVersion" || k == "kind") continue;
      if (!seen_.count(k)) return Error{Path(k) + ": unknown field"};
    }
  }
  return {};
}

}  // namespace berth::framework
