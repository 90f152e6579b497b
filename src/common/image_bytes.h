#pragma once
// Bytes of images as the multimodal APIs carry them: base64 (RFC 4648, standard alphabet,
// padded) and the signature that names an image's type. Shared by the client's datasets
// (workload/image_data.h) and the simulator's image inputs (sim/pooling_api.h).
#include <optional>
#include <string>
#include <string_view>

namespace sb {

std::string base64_encode(std::string_view bytes);
// The bytes of standard, padded base64 text (no whitespace); nullopt when it is not such text.
std::optional<std::string> base64_decode(std::string_view text);

// The image type the bytes' signature names: "image/png" (\x89PNG\r\n\x1a\n), "image/jpeg"
// (FF D8 FF), "image/gif" (GIF87a / GIF89a), "image/webp" (RIFF....WEBP); nullopt otherwise.
std::optional<std::string> image_type_of_bytes(std::string_view bytes);

}  // namespace sb
