#include "workload/image_data.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/error.h"

namespace sb::workload {

std::optional<std::string> image_mime_type(std::string_view path) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext == "png") return "image/png";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "webp") return "image/webp";
  return std::nullopt;
}

std::string image_data_url(const std::string& path) {
  const auto mime = image_mime_type(path);
  if (!mime)
    throw usage_error(fmt::format(
        "image '{}': not a supported image type (expected .png, .jpg, .jpeg, .gif or .webp)",
        path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(fmt::format("image '{}': cannot read the file", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  const std::string data = std::move(bytes).str();
  if (data.empty()) throw usage_error(fmt::format("image '{}': the file is empty", path));
  const auto type = image_type_of_bytes(data);
  if (!type)
    throw usage_error(fmt::format(
        "image '{}': not an image (its bytes start with no PNG, JPEG, GIF or WebP signature)",
        path));
  return fmt::format("data:{};base64,{}", *type, base64_encode(data));
}

void attach_image(DatasetEntry& entry, const std::string& url) {
  using nlohmann::json;
  const json image_part = {{"type", "image_url"}, {"image_url", {{"url", url}}}};
  json messages = entry.messages_json.empty()
                      ? json::array({{{"role", "user"}, {"content", entry.prompt}}})
                      : json::parse(entry.messages_json);
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if ((*it)["role"] != "user") continue;
    json& content = (*it)["content"];
    if (content.is_string()) content = json::array({{{"type", "text"}, {"text", content}}});
    content.push_back(image_part);
    break;
  }
  entry.messages_json = messages.dump();
  entry.prompt = fmt::format("![]({}){}", url, entry.prompt);
}

}  // namespace sb::workload
