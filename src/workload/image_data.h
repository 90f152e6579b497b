#pragma once
// Multimodal requests from image files: the image as a data: URL (base64), put into an
// OpenAI chat message as an `image_url` content part and, for TGI, into the prompt with
// TGI's markdown image syntax `![](data:image/png;base64,...)`.
#include <optional>
#include <string>
#include <string_view>

#include "common/image_bytes.h"
#include "workload/dataset.h"

namespace sb::workload {

using sb::base64_encode;  // common/image_bytes.h

// "image/png", "image/jpeg", "image/gif", "image/webp" from the file name's extension
// (case-insensitive); nullopt for anything else.
std::optional<std::string> image_mime_type(std::string_view path);

// The file as a data: URL, typed by its bytes' signature (image_type_of_bytes). Throws sb::Error
// (usage) naming the file when it cannot be read, is empty, has a name of no supported image type,
// or is not an image (no signature above).
std::string image_data_url(const std::string& path);

// Adds the image at `url` to `entry`: an image_url part in the (last user) chat message, and
// the markdown image in front of the prompt text.
void attach_image(DatasetEntry& entry, const std::string& url);

}  // namespace sb::workload
