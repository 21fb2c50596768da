#include "report/document.hpp"

namespace condacuda::report {

using util::Json;

Json env_json(const env::EnvRecord& env) {
  Json j = Json::object();
  j.set("name", env.name);
  j.set("prefix", env.prefix);
  j.set("kind", env::to_string(env.kind));
  return j;
}

Json document(const Json& body, const std::string& outcome, int exit_code) {
  Json out = Json::object();
  if (const Json* schema = body.get("schema")) out.set("schema", *schema);
  if (const Json* env = body.get("env")) out.set("env", *env);
  out.set("outcome", outcome);
  out.set("exit_code", exit_code);
  for (const auto& [key, value] : body.as_object())
    if (key != "schema" && key != "env" && key != "outcome" && key != "exit_code") out.set(key, value);
  return out;
}

Json error_json(const Error& error, int exit_code, const std::optional<std::vector<env::EnvRecord>>& envs_found) {
  Json body = Json::object();
  body.set("schema", "condacuda.error/1");
  Json e = Json::object();
  e.set("code", to_string(error.code));
  e.set("message", error.message);
  e.set("path", error.path.empty() ? Json() : Json(error.path));
  body.set("error", std::move(e));
  if (envs_found) {
    Json envs = Json::array();
    for (const auto& env : *envs_found) envs.push(env_json(env));
    body.set("envs", std::move(envs));
  }
  return document(body, "error", exit_code);
}

} // namespace condacuda::report
