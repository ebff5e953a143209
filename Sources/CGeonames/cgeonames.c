/* See include/cgeonames.h for why this shim exists. */
#include "cgeonames.h"

#include <geonames.h>
#include <string.h>

int pickerd_city_count(void) { return geonames_get_n_cities(); }

/* Copies src into a field of size bytes, cut at a UTF-8 character boundary. */
static void copy(char *field, size_t size, const char *src) {
    size_t length = src ? strlen(src) : 0;
    if (length >= size) {
        length = size - 1;
        while (length > 0 && ((unsigned char)src[length] & 0xC0) == 0x80) length--;
    }
    if (length) memcpy(field, src, length);
    field[length] = 0;
}

int pickerd_city_at(int index, pickerd_city *out) {
    if (index < 0 || index >= geonames_get_n_cities()) return -1;
    GeonamesCity *city = geonames_get_city(index);
    if (!city) return -1;
    out->latitude = geonames_city_get_latitude(city);
    out->longitude = geonames_city_get_longitude(city);
    out->population = geonames_city_get_population(city);
    copy(out->name, sizeof out->name, geonames_city_get_name(city));
    copy(out->state, sizeof out->state, geonames_city_get_state(city));
    copy(out->country, sizeof out->country, geonames_city_get_country(city));
    copy(out->country_code, sizeof out->country_code, geonames_city_get_country_code(city));
    copy(out->time_zone, sizeof out->time_zone, geonames_city_get_timezone(city));
    geonames_city_free(city);
    return 0;
}
